import { CALENDAR_DATE, isInWindow, type ReviewWindow } from '../helpers/dates';
import { clientKey, decodeKeyGroups, encodeKeyGroups } from './clientKeys';

/** The review date last handled for each client in the window (docs/trigger.md, "Review Due"). */
export class DueMemory {
	private readonly dateByKey = new Map<string, string>();

	/** Whether to emit the client's date; a date that left the window is forgotten. */
	observe(clientId: string, date: unknown, window: ReviewWindow): boolean {
		const entering = this.isEntering(clientId, date, window);
		const key = clientKey(clientId);
		if (isInWindow(window, date)) this.dateByKey.set(key, date);
		else this.dateByKey.delete(key);
		return entering;
	}

	isEntering(clientId: string, date: unknown, window: ReviewWindow): boolean {
		return isInWindow(window, date) && this.dateByKey.get(clientKey(clientId)) !== date;
	}

	forgetBefore(date: string): void {
		for (const [key, handled] of this.dateByKey) if (handled < date) this.dateByKey.delete(key);
	}

	encode(): Record<string, string> {
		const byDate = new Map<string, string[]>();
		for (const [key, date] of this.dateByKey) {
			const keys = byDate.get(date) ?? [];
			keys.push(key);
			byDate.set(date, keys);
		}
		return encodeKeyGroups(byDate);
	}

	static decode(encoded: unknown): DueMemory | undefined {
		const groups = decodeKeyGroups(encoded, (date) => CALENDAR_DATE.test(date));
		if (!groups) return undefined;
		const memory = new DueMemory();
		for (const [date, keys] of groups) for (const key of keys) memory.dateByKey.set(key, date);
		return memory;
	}
}
