import { CALENDAR_DATE, isInWindow, type ReviewWindow } from '../helpers/dates';
import { clientKey, decodeKeyGroups, encodeKeyGroups } from './clientKeys';

/*
 * Review Due's memory. Why the trigger remembers dates: docs/trigger.md ("Review Due").
 */

/**
 * For each client inside the window, the review date the trigger last handled for it (emitted,
 * or found already due on the first poll). Kept as a map from the client's 8-character key.
 */
export class DueMemory {
	private readonly dateByKey = new Map<string, string>();

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
		const groups = decodeKeyGroups(encoded, (date) => CALENDAR_DATE.test(date));
		if (!groups) return undefined;
		const memory = new DueMemory();
		for (const [date, keys] of groups) for (const key of keys) memory.dateByKey.set(key, date);
		return memory;
	}
}
