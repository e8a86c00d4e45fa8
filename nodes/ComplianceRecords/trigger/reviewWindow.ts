import { clientKey, decodeKeyGroups, encodeKeyGroups } from './cursor';

/*
 * The review window: today (the workflow's time zone: review dates are calendar dates) to today
 * + N days, both included. Why the trigger remembers dates: docs/trigger.md ("Review Due").
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The window's name in both nodes (Get Many's filter, the trigger's Review Due). */
export const REVIEW_DUE_WITHIN = 'Review Due Within (Days)';

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
interface ReviewWindow {
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

	/** Static data: `{ date: the keys of the clients handled with that date }`. */
	encode(): Record<string, string> {
		const byDate = new Map<string, string[]>();
		for (const [key, date] of this.dateByKey) {
			const keys = byDate.get(date) ?? [];
			keys.push(key);
			byDate.set(date, keys);
		}
		return encodeKeyGroups(byDate);
	}

	/** Reads what {@link encode} wrote; undefined when it is not that shape. */
	static decode(encoded: unknown): DueMemory | undefined {
		const groups = decodeKeyGroups(encoded, (date) => DATE.test(date));
		if (!groups) return undefined;
		const memory = new DueMemory();
		for (const [date, keys] of groups) for (const key of keys) memory.dateByKey.set(key, date);
		return memory;
	}
}
