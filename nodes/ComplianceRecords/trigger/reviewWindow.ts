import { clientKey, CLIENT_KEY_LENGTH } from './cursor';

/*
 * The rules of the Review Due event, as pure functions.
 *
 * A client is due when its `nextReviewDate` (a calendar date) lies in the review window:
 * from today to today + N days, both included. "Today" is the n8n host's date in the
 * workflow's time zone: review dates are calendar dates, and the service has no clock to ask.
 * Dates already past are overdue, not "coming within N days", and are never emitted.
 *
 * Whether a modified client's date changed cannot be read from the service (no history, no
 * date filter), so the trigger remembers, for each client currently inside the window, the date
 * it last handled for it: {@link DueMemory}. That is the only state that grows with the firm.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function calendarDate(epochMs: number, timeZone: string): string {
	const parts = new Intl.DateTimeFormat('en-CA', {
		timeZone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
	}).formatToParts(new Date(epochMs));
	const part = (type: string) => parts.find((p) => p.type === type)?.value;
	return `${part('year')}-${part('month')}-${part('day')}`;
}

export function addDays(date: string, days: number): string {
	const [, year, month, day] = DATE.exec(date) ?? [];
	const shifted = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day) + days));
	return shifted.toISOString().slice(0, 10);
}

/** Both bounds included, as YYYY-MM-DD (which compare correctly as strings). */
export interface ReviewWindow {
	from: string;
	to: string;
}

/** Before every date the service can hold: a window from it takes every date up to its end. */
export const EARLIEST_DATE = '0000-01-01';

export function reviewWindow(today: string, days: number): ReviewWindow {
	return { from: today, to: addDays(today, days) };
}

export function isInWindow(window: ReviewWindow, date: unknown): date is string {
	return typeof date === 'string' && DATE.test(date) && date >= window.from && date <= window.to;
}

/**
 * For each client inside the window, the review date the trigger last handled for it (emitted,
 * or found already due on the first poll). Kept as a map from the client's 8-character key.
 */
export class DueMemory {
	private readonly dateByKey = new Map<string, string>();

	get size(): number {
		return this.dateByKey.size;
	}

	/**
	 * Takes a client's current review date; true when it should be emitted: the date is inside
	 * the window and is not the one handled for this client before. A client whose date left the
	 * window (or was cleared) is forgotten, so coming back later counts as a change. Idempotent:
	 * observing the same state twice emits at most once.
	 */
	observe(clientId: string, date: unknown, window: ReviewWindow): boolean {
		const entering = this.isEntering(clientId, date, window);
		const key = clientKey(clientId);
		if (isInWindow(window, date)) this.dateByKey.set(key, date);
		else this.dateByKey.delete(key);
		return entering;
	}

	/** What {@link observe} would answer, without recording anything. */
	isEntering(clientId: string, date: unknown, window: ReviewWindow): boolean {
		return isInWindow(window, date) && this.dateByKey.get(clientKey(clientId)) !== date;
	}

	/** Forgets dates before `date`: they have left the window for good. */
	forgetBefore(date: string): void {
		for (const [key, handled] of this.dateByKey) if (handled < date) this.dateByKey.delete(key);
	}

	/** Static data: {date: the keys of the clients handled with that date, concatenated}. */
	encode(): Record<string, string> {
		const byDate = new Map<string, string[]>();
		for (const [key, date] of this.dateByKey) {
			const keys = byDate.get(date) ?? [];
			keys.push(key);
			byDate.set(date, keys);
		}
		const encoded: Record<string, string> = {};
		for (const date of [...byDate.keys()].sort()) encoded[date] = (byDate.get(date) ?? []).sort().join('');
		return encoded;
	}

	/** Reads what {@link encode} wrote; undefined when it is not that shape. */
	static decode(encoded: unknown): DueMemory | undefined {
		if (typeof encoded !== 'object' || encoded === null || Array.isArray(encoded)) return undefined;
		const memory = new DueMemory();
		for (const [date, keys] of Object.entries(encoded)) {
			if (!DATE.test(date) || typeof keys !== 'string' || keys.length % CLIENT_KEY_LENGTH !== 0) {
				return undefined;
			}
			for (let at = 0; at < keys.length; at += CLIENT_KEY_LENGTH) {
				memory.dateByKey.set(keys.slice(at, at + CLIENT_KEY_LENGTH), date);
			}
		}
		return memory;
	}
}
