import type { IPollFunctions } from 'n8n-workflow';

import { calendarDate, reviewWindow } from '../../helpers/dates';
import { watermarkAfter } from '../../helpers/serviceTime';
import type { PollBudget } from '../budget';
import { DueMemory } from '../dueMemory';
import { fullClientOrStop, sweep, type Sweep } from '../sweep';
import type { Client } from '../validation';

// Why: docs/trigger.md, "Review Due".

export interface ReviewSweep extends Sweep {
	/** The day of a scan in progress; undefined: a listing of modified clients. */
	scan?: string;
	recording?: boolean;
}

export interface ReviewState {
	/** Undefined until a scan has completed. */
	since: number | undefined;
	scannedOn: string | undefined;
	due: DueMemory;
	sweep?: ReviewSweep;
}

export async function pollReviewDue(
	this: IPollFunctions,
	budget: PollBudget,
	saved: ReviewState | undefined,
	reviewDays: number,
	fullClient: ((client: Client) => Promise<Client>) | undefined,
): Promise<{ emitted: Client[]; state: ReviewState }> {
	const today = calendarDate(Date.now(), this.getTimezone());
	const window = reviewWindow(today, reviewDays);
	// A scan begun on an earlier day starts again from the first page; its bound still holds.
	const unfinished = saved?.sweep;
	const resumed =
		unfinished?.scan === undefined || unfinished.scan === today
			? unfinished
			: {
					firstEvaluation: unfinished.firstEvaluation,
					scan: today,
					recording: unfinished.recording,
				};
	const scanning = resumed ? resumed.scan !== undefined : saved?.scannedOn !== today;
	const due = saved?.due ?? new DueMemory();
	if (scanning) due.forgetBefore(today);
	// A first scan over several polls records clients unchanged since its floor, emits others.
	const recording = saved === undefined || resumed?.recording === true;
	const activationFloor = watermarkAfter(
		saved?.since ?? -Infinity,
		resumed?.firstEvaluation ?? -Infinity,
	);
	const predatesActivation = (client: Client) =>
		saved === undefined || (recording && Date.parse(client.lastModifiedAt) < activationFloor);

	const emitted: Client[] = [];
	let progressed = false;
	const progress = await sweep.call(
		this,
		budget,
		scanning ? undefined : saved?.since,
		resumed,
		async (listed) => {
			for (const { client } of listed) {
				if (
					predatesActivation(client) ||
					!due.isEntering(client.id, client.nextReviewDate, window)
				) {
					due.observe(client.id, client.nextReviewDate, window);
					continue;
				}
				const shown = fullClient
					? await fullClientOrStop(budget, fullClient, client, progressed)
					: client;
				if (!shown) return false;
				due.observe(client.id, client.nextReviewDate, window);
				// A date changed since the listing is judged on the state emitted.
				const sameDate = shown.nextReviewDate === client.nextReviewDate;
				if (sameDate || due.observe(shown.id, shown.nextReviewDate, window)) emitted.push(shown);
				progressed = true;
			}
			progressed = true;
			return true;
		},
	);

	emitted.sort(
		(a, b) =>
			String(a.nextReviewDate).localeCompare(String(b.nextReviewDate)) || a.id.localeCompare(b.id),
	);
	if (!progress.complete) {
		const sweepState: ReviewSweep = {
			...progress.sweep,
			...(scanning && { scan: today }),
			...(recording && { recording }),
		};
		return {
			emitted,
			state: { since: saved?.since, scannedOn: saved?.scannedOn, due, sweep: sweepState },
		};
	}
	const since = watermarkAfter(saved?.since ?? -Infinity, progress.sweep.firstEvaluation);
	return {
		emitted,
		state: {
			since: Number.isFinite(since) ? since : undefined,
			scannedOn: scanning ? today : saved?.scannedOn,
			due,
		},
	};
}
