import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { advanceCursor, isNewChange, type HandledChange, type StreamCursor } from '../cursor';
import { listClients, timestampOf, type Client, type PollBudget } from '../clients';

/*
 * Client Created or Modified, and AML Determination Completed: one stream of modified clients
 * (completing a determination moves lastModifiedAt), each event with its own event time.
 */

/** How far back the first poll looks for changes to mark as already known. */
export const FIRST_POLL_LOOKBACK_MS = 24 * 60 * 60 * 1000;

/** When a client's event happened (epoch ms), or undefined when it has none. */
export type EventTime = (context: IPollFunctions, client: Client) => number | undefined;

export const modifiedAt: EventTime = (context, client) =>
	timestampOf(context, client.lastModifiedAt, `lastModifiedAt of client ${client.id}`);

export const determinationCompletedAt: EventTime = (context, client) => {
	const determination = client.lastAmlDetermination as IDataObject | undefined | null;
	if (!determination) return undefined;
	return timestampOf(context, determination.completedAt, `lastAmlDetermination.completedAt of client ${client.id}`);
};

export interface PollResult {
	emitted: Client[];
	cursor: StreamCursor;
}

/**
 * One poll of the stream. With no cursor (the first activated poll), it lists the last day of
 * changes from the host's clock, emits nothing and marks them as known: that yields a watermark
 * and seen set taken from the service's own timestamps, so a change made between activation and
 * the next poll is emitted whatever the host's clock says. Otherwise it emits every client whose
 * event is at or after the watermark and not handled before, oldest first.
 */
export async function pollChanges(
	this: IPollFunctions,
	budget: PollBudget,
	saved: StreamCursor | undefined,
	eventTime: EventTime,
	present: (client: Client) => Promise<Client>,
): Promise<PollResult> {
	const cursor = saved ?? { since: Date.now() - FIRST_POLL_LOOKBACK_MS, seen: new Map() };
	const { clients, sightings } = await listClients.call(this, budget, cursor.since);

	const fresh = clients
		.map((client) => ({ client, time: eventTime(this, client) }))
		.filter((event): event is { client: Client; time: number } =>
			event.time !== undefined && isNewChange(cursor, event.client.id, event.time),
		)
		.sort((a, b) => a.time - b.time || a.client.id.localeCompare(b.client.id));

	const emitted: Client[] = [];
	const handled: HandledChange[] = [];
	for (const { client, time } of fresh) {
		if (!saved) {
			handled.push({ clientId: client.id, eventTime: time });
			continue;
		}
		// The full client may be newer than the list item: remember the state actually emitted.
		const shown = await present(client);
		emitted.push(shown);
		handled.push({ clientId: client.id, eventTime: eventTime(this, shown) ?? time });
	}
	return { emitted, cursor: advanceCursor(cursor, sightings, handled) };
}
