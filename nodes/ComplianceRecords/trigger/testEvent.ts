import type { IPollFunctions } from 'n8n-workflow';

import type { PollBudget } from './budget';
import { listClients } from './listing';
import type { Client } from './validation';

// An event moves lastModifiedAt: the first span holding enough holds the firm's newest events.

const SAMPLE_SIZE = 5;

const MINUTE = 60 * 1000;
const SPANS_MS = [
	10 * MINUTE,
	60 * MINUTE,
	24 * 60 * MINUTE,
	7 * 24 * 60 * MINUTE,
	30 * 24 * 60 * MINUTE,
	365 * 24 * 60 * MINUTE,
];

export async function latestEvents(
	this: IPollFunctions,
	budget: PollBudget,
	eventTime: (client: Client) => number | undefined,
): Promise<Client[]> {
	const eventsSince = async (since?: number) => {
		const clients = await listClients.call(this, budget, since);
		return clients
			.map((client) => ({ client, time: eventTime(client) }))
			.filter(
				(event): event is { client: Client; time: number } =>
					event.time !== undefined && (since === undefined || event.time >= since),
			);
	};
	const newest = (events: Array<{ client: Client; time: number }>) =>
		events
			.sort((a, b) => b.time - a.time || a.client.id.localeCompare(b.client.id))
			.slice(0, SAMPLE_SIZE)
			.map((event) => event.client);

	const now = Date.now();
	for (const span of SPANS_MS) {
		const events = await eventsSince(now - span);
		if (events.length >= SAMPLE_SIZE) return newest(events);
	}
	return newest(await eventsSince());
}
