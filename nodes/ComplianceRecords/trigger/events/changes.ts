import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { COMMIT_LAG_MS } from '../../helpers/serviceTime';
import type { PollBudget } from '../budget';
import { clientKey } from '../clientKeys';
import { type Client, fullClientOrStop, serviceTime, sweep, type Sweep, timestampOf } from '../listing';
import {
	completeCursor,
	type HandledChange,
	isNewChange,
	isReplayedChange,
	rememberIn,
	type Seen,
	type StreamCursor,
	sweepFloor,
	sweepSeenAfterStop,
} from '../watermark';

/*
 * Client Created or Modified, and AML Determination Completed: one stream of modified clients
 * (completing a determination moves lastModifiedAt), each event with its own event time.
 */

/**
 * How far back the first poll looks, by the n8n host's clock, for changes to mark as already
 * known: only when the service's answers carry no usable `Date` (otherwise it starts at the
 * service's own time).
 */
export const FIRST_POLL_LOOKBACK_MS = 24 * 60 * 60 * 1000;

/** When a client's event happened (epoch ms), or undefined when it has none. */
export type EventTime = (context: IPollFunctions, client: Client) => number | undefined;

export const modifiedAt: EventTime = (context, client) =>
	timestampOf(context, client.lastModifiedAt, `the last change time of client ${client.id}`);

export const determinationCompletedAt: EventTime = (context, client) => {
	const determination = client.lastAmlDetermination as IDataObject | undefined | null;
	if (!determination) return undefined;
	return timestampOf(context, determination.completedAt, `the AML determination completion time of client ${client.id}`);
};

/** A listing of the stream in progress (see cursor.ts for what `seen` keeps, and why). */
export interface StreamSweep extends Sweep {
	seen: Seen;
	/** The first listing after activation: it records what it lists instead of emitting it. */
	recording?: boolean;
}

export interface StreamState {
	cursor: StreamCursor;
	sweep?: StreamSweep;
}

interface PollResult {
	emitted: Client[];
	state: StreamState;
}

/**
 * Where a stream with no saved state starts: the service's time (its `Date`) less the commit lag,
 * recording what it lists (docs/trigger.md, "The first poll"); without `Date`, a day back by the host's clock.
 */
async function firstListing(this: IPollFunctions, budget: PollBudget): Promise<StreamState> {
	const now = await serviceTime.call(this, budget);
	const since = now === undefined ? Date.now() - FIRST_POLL_LOOKBACK_MS : now - COMMIT_LAG_MS;
	return { cursor: { since, seen: new Map() }, sweep: undefined };
}

/**
 * One poll of the stream: lists the clients modified since the watermark (resuming an unfinished
 * listing) and emits, oldest first, each change not handled before; stops when the budget runs short.
 */
export async function pollChanges(
	this: IPollFunctions,
	budget: PollBudget,
	saved: StreamState | undefined,
	eventTime: EventTime,
	fullClient: ((client: Client) => Promise<Client>) | undefined,
): Promise<PollResult> {
	const state = saved ?? (await firstListing.call(this, budget));
	const { cursor } = state;
	const sweptSeen = state.sweep?.seen ?? new Map();
	const floor = sweepFloor(cursor.since, state.sweep?.firstEvaluation ?? -Infinity);
	// The first poll records all it lists. When its listing takes more polls, these record only
	// what changed before the sweep's floor: a change at or after it may have come after
	// activation, and is emitted.
	const recording = saved === undefined || state.sweep?.recording === true;
	const records = (time: number) => saved === undefined || (recording && time < floor);

	const emitted: Array<{ client: Client; time: number }> = [];
	const handled: HandledChange[] = [];
	const handledInPoll: Seen = new Map();
	let progressed = false;
	let unfinishedPage = new Set<string>();
	const remember = (change: HandledChange) => {
		handled.push(change);
		rememberIn(handledInPoll, change);
	};

	const progress = await sweep.call(this, budget, cursor.since, state.sweep, async (listed) => {
		const fresh = listed
			.map(({ client, replayed }) => ({ client, replayed, time: eventTime(this, client) }))
			.filter(
				(event): event is { client: Client; replayed: boolean; time: number } =>
					event.time !== undefined &&
					!(event.replayed && isReplayedChange(event.time, floor)) &&
					isNewChange(cursor, event.client.id, event.time, [sweptSeen, handledInPoll]),
			)
			.sort((a, b) => a.time - b.time || a.client.id.localeCompare(b.client.id));
		for (const { client, time } of fresh) {
			if (records(time)) {
				remember({ clientId: client.id, eventTime: time });
				continue;
			}
			// The full client may be newer than the list item: remember the state actually emitted.
			const shown = fullClient ? await fullClientOrStop(budget, fullClient, client, progressed) : client;
			if (!shown) {
				unfinishedPage = new Set(listed.map(({ client: onPage }) => clientKey(onPage.id)));
				return false;
			}
			emitted.push({ client: shown, time });
			remember({ clientId: client.id, eventTime: eventTime(this, shown) ?? time });
			progressed = true;
		}
		progressed = true;
		return true;
	});

	const { firstEvaluation } = progress.sweep;
	const next: StreamState = progress.complete
		? { cursor: completeCursor(cursor, firstEvaluation, [sweptSeen, handled]) }
		: {
				cursor,
				sweep: {
					...progress.sweep,
					seen: sweepSeenAfterStop([sweptSeen, handled], sweepFloor(cursor.since, firstEvaluation), unfinishedPage),
					...(recording && { recording }),
				},
			};
	emitted.sort((a, b) => a.time - b.time || a.client.id.localeCompare(b.client.id));
	return { emitted: emitted.map(({ client }) => client), state: next };
}
