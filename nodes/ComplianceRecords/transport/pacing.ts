import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { rateLimitOf } from './answers';
import { answerIn, FailedRequest, type Sending } from './failures';

/* How fast an execution sends: every request of both nodes takes its turn from a Pacer
 * (retries.ts). Why these numbers, and what several executions at once do: docs/service-limits.md. */

/** The most requests of one execution in flight at once (measured: docs/benchmarks.md, "Requests in flight"). */
export const MAX_IN_FLIGHT = 32;

/** The longest the node waits before sending a request again; a service asking for more fails the request at once. */
const MAX_WAIT_MS = 60_000;

/** Waits `ms`, or rejects once n8n cancels the execution (n8n 1.x's `sleep` takes no signal, hence the race). */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	signal.throwIfAborted();
	let onAbort = () => {};
	const cancelled = new Promise<never>((_, reject) => {
		onAbort = () => reject(signal.reason);
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal), cancelled]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/** The failure to throw instead of waiting `waitMs`, when that is longer than the node waits or than `roomMs`. */
export function refusedWait(
	refusal: unknown,
	sending: Sending,
	waitMs: number,
	roomMs: number,
): FailedRequest | undefined {
	if (waitMs > roomMs)
		return new FailedRequest(refusal, {
			...sending,
			declined: { askedMs: waitMs, allowedMs: Math.max(0, roomMs), byPoll: true },
		});
	if (waitMs > MAX_WAIT_MS)
		return new FailedRequest(refusal, {
			...sending,
			declined: { askedMs: waitMs, allowedMs: MAX_WAIT_MS, byPoll: false },
		});
	return undefined;
}

interface Turn {
	method: string;
	/** How often the request was sent already: one sent again goes first, it has waited already. */
	sent: number;
	signal?: AbortSignal;
	/** How long a wait may be (the time left in the trigger's poll). */
	roomToWaitMs: () => number;
}

/** What each does and why: docs/service-limits.md, "How fast an execution sends". */
const FIRST_IN_FLIGHT = 8;
const EXECUTION_SENDS_PER_MS = 0.5;
const HOLD_MS = 1_000;
const CREDIT_UNDER = 0.9;
const WINDOW_DUE = 1.2;
const UNDER_LIMIT = 0.98;
const WINDOW_MARGIN = 1.01;
const TAIL_COUNTED = 2;
const TAIL_MEASURED = 5;
const HELD_REQUESTS = 20;
const DRAINED_REQUESTS = 5;
const DRAIN_MEMORY_MS = 10_000;

/** The pace that keeps within `count` requests per `windowMs`. */
function windowPace(count: number, windowMs: number): number {
	return (count / windowMs) * UNDER_LIMIT;
}

interface Cycle {
	accepted: number;
	busyMs: number;
	waitMs: number;
}

/** The requests already on their way at a refusal, by when they started (the service's clock, give or take a round trip). */
interface Tail {
	from: number;
	/** The earliest start refused: the service ran out about when it arrived. */
	emptiedAt: number;
	lastStartedAt: number;
	acceptedStarts: number[];
	cycle: Cycle;
	/** The pace refused (at the first refusal, none: unpaced). */
	pace: number;
	first: boolean;
}

/**
 * The pace of one execution's requests: a slow start to {@link MAX_IN_FLIGHT} in flight; after a
 * 429 none before the wait it asked, then within the limit learned from the service's answers.
 */
export class Pacer {
	private inFlight = 0;

	private readonly queued: Array<() => void> = [];

	/** The most in flight now: from 8, one more for each answer accepted, up to a round trip's worth ({@link widen}). */
	private window = FIRST_IN_FLIGHT;

	/** The quickest answer accepted: the round trip with nothing queued before it. */
	private quickestMs = Infinity;

	private pausedUntil = 0;

	private pausedBy?: unknown;

	private starting = Promise.resolve();

	private rate = Infinity;

	private nextStartAt = 0;

	private credit = 0;

	private creditAfterWait = 0;

	/** What the last answer's rate-limit headers said is left: it goes at once, past pace and window. */
	private told = 0;

	/** The limit as learned: its shape, burst, window, and the paces held and refused (per ms). */
	private shape: 'unknown' | 'refills' | 'window' = 'unknown';

	private burst = 1;

	private windowCount = Infinity;

	private windowMs = 0;

	/** A window the first refusal showed (none of the requests on their way accepted) frees its count at once. */
	private windowAtOnce = false;

	/** The places taken in the service's window: a request in flight from its start, one accepted from its answer. */
	private readonly held: number[] = [];

	private counted = 0;

	private countedOver = 0;

	private longestResetMs = 0;

	private floor = 0;

	private ceiling = Infinity;

	private measured = false;

	/** Busy ms: time in which requests waited or were in flight, the node's own silences left out. */
	private paceSince = 0;

	private sentAtPace = 0;

	private acceptedAtPace = 0;

	private learnedAt = -Infinity;

	/** The starts (busy ms) of the requests accepted since the last refusal. */
	private readonly acceptedSinceRefusal: number[] = [];

	/** The start (busy ms) of the request the last refusal answered. */
	private lastRefusedAt = -Infinity;

	/** The most the limit took at once: all the first stretch before the first refusal accepted. */
	private mostAtOnce = Infinity;

	/** Whether the pace is a faster one tried mid-stream (not one set after a wait), and the pace it was tried from. */
	private probing = false;

	private probedFrom = 0;

	private tail?: Tail;

	private idleMs = 0;

	private idleSince?: number = 0;

	async turn({ method, sent, signal, roomToWaitMs }: Turn): Promise<number> {
		if (this.idleSince !== undefined) {
			const idleMs = performance.now() - this.idleSince;
			this.idleMs += idleMs;
			this.idleSince = undefined;
			if (Number.isFinite(this.rate))
				this.credit = Math.max(this.credit, this.creditFor(idleMs * this.rate));
		}
		if (this.inFlight < this.window && this.queued.length === 0) this.inFlight++;
		else
			await new Promise<void>((resolve) =>
				sent > 0 ? this.queued.unshift(resolve) : this.queued.push(resolve),
			);
		// One request at a time waits for its start, so that a pace changed meanwhile applies at once.
		const before = this.starting;
		let release = () => {};
		this.starting = new Promise<void>((resolve) => (release = resolve));
		let started = false;
		try {
			await before;
			for (;;) {
				const now = performance.now();
				if (this.pausedUntil > now) {
					const waitMs = this.pausedUntil - now;
					const declined = refusedWait(
						this.pausedBy,
						{ method, tries: sent },
						waitMs,
						roomToWaitMs(),
					);
					if (declined) throw declined;
					await pause(waitMs, signal);
					continue;
				}
				this.settle(now);
				const startAt = this.startAt(now);
				if (startAt > now) {
					this.probe(now);
					await pause(Math.ceil(startAt - now), signal);
					continue;
				}
				// A paced start counts from when it was due: a timer fires late, at 100 a second 1 ms is 10%.
				const interval = 1 / this.rate;
				let due = now;
				if (this.told >= 1) this.told--;
				else if (this.credit >= 1) this.credit--;
				else due = Math.max(this.nextStartAt, now - interval / 2);
				this.nextStartAt = due + interval;
				this.held.push(now);
				this.sentAtPace++;
				started = true;
				return now;
			}
		} finally {
			release();
			if (!started) this.leave();
		}
	}

	done(startedAt: number, throttled?: { waitMs: number; refusal: unknown }): void {
		this.leave();
		const now = performance.now();
		const sentBefore = startedAt < this.learnedAt;
		const tail = sentBefore ? this.tail : undefined;
		if (tail) {
			tail.lastStartedAt = Math.max(tail.lastStartedAt, startedAt);
			if (throttled) tail.emptiedAt = Math.min(tail.emptiedAt, startedAt);
			else tail.acceptedStarts.push(startedAt);
		}
		// A window's place is held from the answer: the service counted the request by then, however late it arrived.
		const place = this.held.lastIndexOf(startedAt);
		if (place >= 0) this.held.splice(place, 1);
		if (!throttled) {
			this.held.push(now);
			if (this.busy(startedAt) >= this.paceSince) this.acceptedAtPace++;
			if (!sentBefore) this.remember(this.busy(startedAt));
			this.widen(now - startedAt);
			this.admit();
			return;
		}
		if (now + throttled.waitMs > this.pausedUntil) {
			this.pausedUntil = now + throttled.waitMs;
			this.pausedBy = throttled.refusal;
		}
		const answer = answerIn(throttled.refusal);
		if (answer) this.heard(answer.headers);
		if (sentBefore || this.busy(startedAt) < this.paceSince) return;
		this.learnedAt = now;
		this.refused(
			{
				accepted: this.acceptedAtPace,
				busyMs: Math.max(1, this.busy(startedAt) - this.paceSince),
				waitMs: throttled.waitMs,
			},
			now,
			startedAt,
		);
	}

	/** A limit in rate-limit headers paces at once, its count bounding any window (answers.ts rateLimitOf). */
	heard(headers: IDataObject): void {
		const said = rateLimitOf(headers);
		this.longestResetMs = Math.max(this.longestResetMs, said.resetMs ?? 0);
		const windowMs = said.windowMs ?? Math.max(HOLD_MS, this.longestResetMs);
		if (said.requests) {
			const rate = windowPace(said.requests, windowMs);
			this.measured = true;
			this.windowCount = said.requests;
			this.windowMs = windowMs;
			this.floor = this.ceiling = said.requests / windowMs;
			if (Math.abs(rate / this.rate - 1) > 0.01) this.pace(rate, performance.now());
		}
		if (said.remaining !== undefined) this.told = Math.max(0, said.remaining - this.inFlight);
	}

	/** A window holds the same count at every refusal (so does a bucket refused twice at one pace: windowFound tells them apart). */
	private countWindow({ from, cycle }: Tail, now: number): void {
		if (this.shape !== 'unknown' || this.measured) return;
		const windowMs = this.countedOver || Math.max(HOLD_MS, cycle.waitMs);
		const count = this.held.filter((at) => at > from - windowMs).length;
		// A count of one or two a window says as much of a slow token bucket.
		const same = Math.abs(count - this.counted) <= Math.max(1, 0.1 * this.counted);
		if (this.countedOver && same && count >= 3)
			this.windowFound(count, Math.min(count, this.counted), windowMs, now);
		this.counted = count;
		this.countedOver = windowMs;
	}

	private refused(cycle: Cycle, now: number, startedAt: number): void {
		const first = !Number.isFinite(this.rate);
		const measuredBefore = this.measured;
		const probed = this.probing;
		this.probing = false;
		this.tail = {
			from: now,
			emptiedAt: startedAt,
			lastStartedAt: startedAt,
			acceptedStarts: [],
			cycle,
			pace: this.rate,
			first,
		};
		this.nextStartAt = this.pausedUntil;
		this.credit = this.told = 0;
		this.windowAtOnce = false;
		const drained = this.drainedRate(this.busy(startedAt));
		this.acceptedSinceRefusal.length = 0;
		this.lastRefusedAt = this.busy(startedAt);
		if (this.shape === 'window') {
			// A window refuses once its count was taken within it: refused short of that, it was not one (a bucket's burst read as one).
			const taken = this.held.filter((at) => at > now - this.windowMs * WINDOW_MARGIN).length;
			if (this.windowCount >= this.counted && taken >= 0.9 * this.windowCount) {
				this.windowCount = Math.floor(0.9 * this.windowCount);
				this.pace(windowPace(this.windowCount, this.windowMs), this.pausedUntil);
				return;
			}
			this.shape = 'unknown';
			this.windowCount = Infinity;
		}
		if (drained > this.floor) {
			this.floor = drained;
			this.measured = true;
		}
		const ceiling = this.ceiling;
		this.ceiling = Math.min(
			this.ceiling,
			first ? Math.max(1, this.sentAtPace) / cycle.busyMs : this.rate,
		);
		const accepted = cycle.accepted / (cycle.busyMs + cycle.waitMs);
		if (this.floor >= this.ceiling) this.floor = Math.max(accepted, this.ceiling / 2);
		const refilled =
			this.shape === 'refills' && cycle.accepted > this.burst
				? ((cycle.accepted - this.burst) / cycle.busyMs) * 0.9
				: 0;
		// Nothing drained to read a rate from: the pace held before this one is the best guess.
		const heldBefore = probed && drained === 0 ? this.probedFrom : 0;
		const known = Math.max(this.floor, accepted, refilled, heldBefore);
		let rate = Math.min(known > 0 ? known : this.ceiling / 2, this.ceiling / 1.05) * UNDER_LIMIT;
		// Refused before the burst given after the wait was spent, at a measured pace: the burst was more than the bucket held
		// (at a guessed one, the pace is the likelier fault: a large burst over the wait reads as a fast rate).
		const burstRefused = cycle.accepted < this.creditAfterWait && measuredBefore && !probed;
		if (this.shape === 'refills' && this.burst > 1 && burstRefused) {
			this.burst = Math.max(1, (cycle.accepted - this.rate * cycle.busyMs) * 0.8);
			rate = this.rate;
			this.ceiling = ceiling;
		}
		this.pace(rate, this.pausedUntil);
		if (this.shape === 'refills') this.giveCredit(rate * cycle.waitMs);
	}

	/** After a refusal's wait: the answers to requests already on their way tell a bucket from a window. */
	private settle(now: number): void {
		const tail = this.tail;
		if (!tail) return;
		this.tail = undefined;
		// Accepted after the service ran out: it refilled meanwhile, at about their count over the span.
		const refilled = tail.acceptedStarts.filter((at) => at > tail.emptiedAt).length;
		const spanMs = tail.lastStartedAt - tail.emptiedAt;
		// None accepted where more than one was due at the pace refused (the first time, the rate it showed): a bucket refills
		// one at least (a fifth over one: the starts are timed here, not where the service counts them).
		const windowShown =
			refilled === 0 && spanMs * (tail.first ? this.rate : tail.pace) >= WINDOW_DUE;
		const unknown = this.shape === 'unknown';
		const bucketFound = refilled > 0 && this.shape !== 'refills';
		if (refilled > 0) this.shape = 'refills';
		else if (unknown && windowShown) this.shape = 'window';
		this.countWindow(tail, now);
		if (!tail.first) {
			// A bucket found at a later refusal: its burst is what the stretch after the last wait took beyond its rate
			// (left at one, a later refusal reads all but one of those as refills, the rate high).
			if (bucketFound)
				this.burst = Math.max(
					1,
					tail.cycle.accepted - (this.rate / UNDER_LIMIT) * tail.cycle.busyMs,
				);
			if (unknown && windowShown && !Number.isFinite(this.windowCount)) {
				const windowMs = Math.max(HOLD_MS, tail.cycle.waitMs);
				const count = this.held.filter((at) => at > tail.from - windowMs).length;
				this.windowFound(count, count, windowMs, now);
			}
			return;
		}
		if (this.measured) return;
		const { busyMs, waitMs } = tail.cycle;
		// Those on their way that were accepted before the service ran out belong to the first stretch.
		const accepted = tail.cycle.accepted + tail.acceptedStarts.length - refilled;
		this.mostAtOnce = accepted;
		let rate = this.rate;
		const tailRate = (refilled / spanMs) * 0.9;
		// A few refills over a short span read the rate loosely: measured where they are many, or near the stretch's rate.
		const tailMeasures =
			refilled >= TAIL_COUNTED &&
			(refilled >= TAIL_MEASURED || Math.abs(tailRate / this.rate - 1) <= 0.3);
		if (refilled >= TAIL_COUNTED) rate = Math.max(rate, tailRate);
		else if (this.shape === 'window') {
			// Sent at once only where all accepted fit in the wait: a longer stretch held more than one window's count.
			this.windowAtOnce = busyMs <= waitMs;
			this.windowCount = accepted;
			this.windowMs = Math.max(busyMs, waitMs);
			rate = Math.max(rate, windowPace(accepted, this.windowMs));
		}
		this.measured = tailMeasures || this.shape === 'window';
		if (this.shape === 'refills') {
			// Of those accepted before the refusal only (a guessed rate reads the burst high).
			this.burst = Math.max(1, tail.cycle.accepted - (rate / UNDER_LIMIT) * busyMs);
			this.giveCredit(rate * waitMs);
		}
		this.ceiling = Math.max(this.ceiling, rate / UNDER_LIMIT);
		if (rate !== this.rate) this.pace(rate, now);
	}

	/**
	 * A window found after the first refusal: paced within `windowCount`, and sent at once where the `count`
	 * it showed is what the first stretch took at once (a bucket's window holds its burst and a refill more).
	 */
	private windowFound(count: number, windowCount: number, windowMs: number, now: number): void {
		this.shape = 'window';
		this.windowAtOnce =
			Number.isFinite(this.mostAtOnce) &&
			Math.abs(count - this.mostAtOnce) <= 0.1 * this.mostAtOnce;
		this.windowCount = windowCount;
		this.windowMs = windowMs;
		this.pace(windowPace(windowCount, windowMs), now);
	}

	/** After a wait, the burst refilled meanwhile goes at once. */
	private giveCredit(refilled: number): void {
		this.credit = this.creditAfterWait = this.creditFor(refilled);
	}

	/** What goes at once of `refilled`: the burst at most, a tenth under (past what the bucket holds is a refusal and a second's wait). */
	private creditFor(refilled: number): number {
		return Math.min(CREDIT_UNDER * this.burst, refilled);
	}

	private remember(acceptedStart: number): void {
		const starts = this.acceptedSinceRefusal;
		starts.push(acceptedStart);
		while (starts[0] < acceptedStart - DRAIN_MEMORY_MS) starts.shift();
	}

	/**
	 * At least the rate that refilled the limit: it was empty at the refusal, so the requests accepted
	 * since any start, less the most it took at once, came in at its rate (a window's count bounds them too).
	 */
	private drainedRate(refusedAt: number): number {
		const starts = this.acceptedSinceRefusal.filter((at) => at <= refusedAt).sort((a, b) => b - a);
		// A bucket was empty at the last refusal too: all it accepted since came from its refill.
		let rate =
			this.shape === 'refills' && starts.length >= DRAINED_REQUESTS
				? (starts.length - 1) / (refusedAt - this.lastRefusedAt)
				: 0;
		starts.forEach((at, index) => {
			const beyond = index + 1 - this.mostAtOnce;
			if (beyond >= DRAINED_REQUESTS && at < refusedAt)
				rate = Math.max(rate, beyond / (refusedAt - at));
		});
		return rate;
	}

	/** A faster pace once this one held: boldly while guessed, gently once measured or found. */
	private probe(now: number): void {
		const found = this.ceiling < 1.3 * this.floor || this.shape === 'window';
		// While guessed: held over 20 requests, between half a second and a second.
		const guessedMs = Math.min(HOLD_MS, Math.max(HOLD_MS / 2, HELD_REQUESTS / this.rate));
		const holdMs = found ? 10 * HOLD_MS : this.measured ? 3 * HOLD_MS : guessedMs;
		const heldMs = this.busy(now) - this.paceSince;
		if (heldMs < holdMs) return;
		// The limit's burst, or a window's count, may have carried part of the pace: what the pace proves is the rest.
		const carried = this.shape === 'refills' ? this.burst : this.mostAtOnce;
		this.floor = Math.max(this.floor, Math.min(this.rate, (this.sentAtPace - carried) / heldMs));
		const faster = found
			? this.rate * 1.05
			: Math.min((this.measured ? 1.1 : 2) * this.rate, Math.sqrt(this.rate * this.ceiling));
		if (faster <= this.rate * 1.01) return;
		this.probedFrom = this.rate;
		this.pace(faster, now);
		this.probing = true;
	}

	/** At the pace (at once for a burst refilled, or a window the first refusal showed), within a window's count kept a little longer. */
	private startAt(now: number): number {
		const windowMs = this.windowMs * WINDOW_MARGIN;
		while (this.held.length > 0 && this.held[0] <= now - (windowMs || MAX_WAIT_MS))
			this.held.shift();
		if (this.told >= 1) return now;
		const inWindow = this.held.length < this.windowCount ? now : this.held[0] + windowMs;
		if (this.windowAtOnce) return inWindow;
		return Math.max(inWindow, this.credit >= 1 ? now : this.nextStartAt);
	}

	private pace(rate: number, from: number): void {
		this.rate = rate;
		this.paceSince = this.busy(from);
		this.sentAtPace = 0;
		this.acceptedAtPace = 0;
	}

	private busy(at: number): number {
		return at - this.idleMs;
	}

	/**
	 * One more in flight for each answer accepted, up to a round trip's worth of what one execution can send: more
	 * would only wait in n8n, and be refused together at a limit's first refusal.
	 */
	private widen(roundTripMs: number): void {
		this.quickestMs = Math.min(this.quickestMs, roundTripMs);
		const worth = Math.max(FIRST_IN_FLIGHT, Math.ceil(this.quickestMs * EXECUTION_SENDS_PER_MS));
		this.window = Math.min(this.window + 1, worth, MAX_IN_FLIGHT);
	}

	private leave(): void {
		this.inFlight--;
		this.admit();
		if (this.inFlight === 0 && this.queued.length === 0) this.idleSince = performance.now();
	}

	private admit(): void {
		while (this.queued.length > 0 && this.inFlight < this.window) {
			this.inFlight++;
			this.queued.shift()?.();
		}
	}
}
