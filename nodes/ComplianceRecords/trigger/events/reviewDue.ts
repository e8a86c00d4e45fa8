import type { IPollFunctions } from 'n8n-workflow';

import { nextWatermark } from '../cursor';
import { listClients, type Client, type PollBudget } from '../clients';
import { calendarDate, DueMemory, reviewWindow } from '../reviewWindow';
import type { SavedState } from '../state';

/*
 * Review Due: a client whose nextReviewDate lies from today to today + N days.
 *
 * A date enters the window in two ways. By the passage of time: the first poll of each
 * calendar day (the workflow's time zone) lists the whole firm once and emits the clients now
 * inside the window that it has not handled with that date. By a change of date: every other
 * poll lists only the clients modified since the previous one (the same watermark as the change
 * events) and emits those whose new date is inside the window. Whether a modified client's date
 * changed comes from the memory of the dates handled for the clients inside the window
 * (DueMemory, about 8 bytes per such client): the service keeps no history.
 *
 * The first activated poll is that day's scan: it records the clients already inside the
 * window and emits none of them.
 */
export async function pollReviewDue(
	this: IPollFunctions,
	budget: PollBudget,
	saved: SavedState | undefined,
	reviewDays: number,
	present: (client: Client) => Promise<Client>,
): Promise<{ emitted: Client[]; state: SavedState }> {
	const today = calendarDate(Date.now(), this.getTimezone());
	const window = reviewWindow(today, reviewDays);
	const scanning = saved?.scannedOn !== today;
	const previous = saved?.cursor?.since;

	const { clients, sightings } = await listClients.call(this, budget, scanning ? undefined : previous);
	const due = saved?.due ?? new DueMemory();
	if (scanning) due.forgetBefore(today);

	const entering = clients
		.filter((client) => due.observe(client.id, client.nextReviewDate, window))
		.sort(
			(a, b) =>
				String(a.nextReviewDate).localeCompare(String(b.nextReviewDate)) || a.id.localeCompare(b.id),
		);

	const emitted: Client[] = [];
	if (saved) {
		for (const client of entering) {
			const shown = await present(client);
			// A date changed again since the listing is judged on the state actually emitted.
			const sameDate = shown.nextReviewDate === client.nextReviewDate;
			if (sameDate || due.observe(shown.id, shown.nextReviewDate, window)) emitted.push(shown);
		}
	}

	const since = nextWatermark(previous ?? -Infinity, sightings);
	return {
		emitted,
		state: {
			event: 'reviewDue',
			cursor: Number.isFinite(since) ? { since, seen: new Map() } : undefined,
			reviewDays,
			scannedOn: today,
			due,
		},
	};
}
