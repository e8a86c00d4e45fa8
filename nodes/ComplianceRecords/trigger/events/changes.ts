import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { COMMIT_LAG_MS, watermarkAfter } from '../../helpers/serviceTime';
import type { PollBudget } from '../budget';
import { clientKey } from '../clientKeys';
import { serviceTime } from '../listing';
import { fullClientOrStop, sweep, type Sweep } from '../sweep';
import { type Client, timestampOf } from '../validation';
import {
	completeCursor,
	type HandledChange,
	isNewChange,
	rememberIn,
	type Seen,
	type StreamCursor,
	sweepSeenAfterStop,
} from '../watermark';

// One stream for both events: completing a determination moves lastModifiedAt.

/** A first poll's look-back, by the host's clock, when the service sends no `Date`. */
const FIRST_POLL_LOOKBACK_MS = 24 * 60 * 60 * 1000;

export type EventTime = (context: IPollFunctions, client: Client) => number | undefined;

export const modifiedAt: EventTime = (context, client) =>
	timestampOf(context, client.lastModifiedAt, `the last change time of client ${client.id}`);

export const determinationCompletedAt: EventTime = (context, client) => {
	const determination = client.lastAmlDetermination as IDataObject | undefined | null;
	if (!determination) return undefined;
	return timestampOf(
		context,
		determination.completedAt,
		`the AML determination completion time of client ${client.id}`,
	);
};

export interface StreamSweep extends Sweep {
	seen: Seen;
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

/** The service's time less the commit lag: docs/trigger.md, "The first poll". */
async function firstListing(this: IPollFunctions, budget: PollBudget): Promise<StreamState> {
	const now = await serviceTime.call(this, budget);
	const since = now === undefined ? Date.now() - FIRST_POLL_LOOKBACK_MS : now - COMMIT_LAG_MS;
	return { cursor: { since, seen: new Map() }, sweep: undefined };
}

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
	const activationFloor = watermarkAfter(cursor.since, state.sweep?.firstEvaluation ?? -Infinity);
	// A first listing over several polls records changes before its floor, emits later ones.
	const recording = saved === undefined || state.sweep?.recording === true;
	const predatesActivation = (time: number) =>
		saved === undefined || (recording && time < activationFloor);

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
					// Replayed below the floor: handled before.
					!(event.replayed && event.time < activationFloor) &&
					isNewChange(cursor, event.client.id, event.time, [sweptSeen, handledInPoll]),
			)
			.sort((a, b) => a.time - b.time || a.client.id.localeCompare(b.client.id));
		for (const { client, time } of fresh) {
			if (predatesActivation(time)) {
				remember({ clientId: client.id, eventTime: time });
				continue;
			}
			// The full client may be newer than the list item: remember the state emitted.
			const shown = fullClient
				? await fullClientOrStop(budget, fullClient, client, progressed)
				: client;
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
					seen: sweepSeenAfterStop(
						[sweptSeen, handled],
						watermarkAfter(cursor.since, firstEvaluation),
						unfinishedPage,
					),
					...(recording && { recording }),
				},
			};
	emitted.sort((a, b) => a.time - b.time || a.client.id.localeCompare(b.client.id));
	return { emitted: emitted.map(({ client }) => client), state: next };
}
