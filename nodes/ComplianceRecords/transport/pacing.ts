import { sleep } from 'n8n-workflow';

import { retryAfterMs } from './answers';
import {
	answerIn,
	CLOSED_EARLY,
	FailedRequest,
	MAY_HAVE_ARRIVED,
	networkCode,
	type Sending,
	UNREACHABLE,
} from './failures';

/*
 * The one rule for what is sent again, and how fast an execution sends: every request of both
 * nodes goes through sendWithRetries (the action node's routed requests, and serviceRequest).
 * Why these numbers, and what several executions at once do: docs/service-limits.md.
 */

/** The most requests of one execution in flight at once (measured: docs/benchmarks.md, "Requests in flight"). */
export const MAX_IN_FLIGHT = 32;

/** The most times one request is sent. */
const MAX_TRIES = 5;

/** The longest the node waits before sending a request again; a service asking for more fails the request at once. */
const MAX_WAIT_MS = 60_000;

/** The first wait without a `Retry-After`, doubled at each try (with jitter). */
const FIRST_BACKOFF_MS = 1_000;

/** A gateway's answers: the service behind it may or may not have acted. */
const GATEWAY_STATUSES = [502, 503, 504];

/** Nothing reached the service, so any method is sent again; but a host name that does not exist (ENOTFOUND) will not within a minute. */
const RESENDABLE_UNSENT = new Set(UNREACHABLE.filter((code) => code !== 'ENOTFOUND'));

/** How far back the requests the service accepted tell its rate limit, and how much under it to stay. */
const RATE_WINDOW_MS = 10_000;
const UNDER_LIMIT = 0.98;
/** While requests queue for their turn, the pace rises this much a second, to find a limit that is higher than learned. */
const PROBE_STEP = 1.02;

/** After a failed try: fail, send it again after `waitMs`, or (a write that may have been applied) only if read back as not applied. */
type Verdict =
	| { resend: false }
	| { resend: true; waitMs: number; throttled: boolean }
	| { resend: 'if-not-applied'; waitMs: number };

/** `FIRST_BACKOFF_MS` doubled per try so far, between 50% and 100% of that (jitter, so that items do not retry together). */
const backoffMs = (tries: number) =>
	FIRST_BACKOFF_MS * 2 ** (tries - 1) * (0.5 + Math.random() / 2);

function verdictOn(error: unknown, method: string, tries: number, readsBack: boolean): Verdict {
	const answer = answerIn(error);
	if (answer) {
		const waitMs = retryAfterMs(answer.headers) ?? backoffMs(tries);
		// A 429 changed nothing, whatever the method.
		if (answer.status === 429) return { resend: true, waitMs, throttled: true };
		if (GATEWAY_STATUSES.includes(answer.status)) {
			if (method === 'GET') return { resend: true, waitMs, throttled: false };
			if (readsBack) return { resend: 'if-not-applied', waitMs };
		}
		return { resend: false };
	}
	const code = networkCode(error);
	if (code === undefined) return { resend: false };
	const waitMs = backoffMs(tries);
	if (RESENDABLE_UNSENT.has(code) || (CLOSED_EARLY.includes(code) && method === 'GET'))
		return { resend: true, waitMs, throttled: false };
	if (MAY_HAVE_ARRIVED.includes(code) && readsBack) return { resend: 'if-not-applied', waitMs };
	return { resend: false };
}

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

interface Turn {
	method: string;
	/** How often the request was sent already: one sent again goes first, it has waited already. */
	sent: number;
	signal?: AbortSignal;
	/** How long a wait may be (the time left in the trigger's poll). */
	roomToWaitMs: () => number;
}

/**
 * The pace of one execution's requests: at most {@link MAX_IN_FLIGHT} in flight; after a 429,
 * none before the wait it asked, then no faster than the rate the service accepted (learned from
 * its answers), rising slowly while requests queue.
 */
export class Pacer {
	private inFlight = 0;

	private readonly queued: Array<() => void> = [];

	/** Host-monotonic ms before which no request starts (the service's last `Retry-After`), and the 429 that asked it. */
	private pausedUntil = 0;

	private pausedBy?: unknown;

	/** The spacing of request starts, ms; 0 until the service refuses a request for its rate. */
	private intervalMs = 0;

	private nextStartAt = 0;

	private raisedAt = 0;

	/** When the last rate was learned: a 429 to a request sent before then belongs to the same refusal. */
	private learnedAt = -Infinity;

	private firstStartAt?: number;

	/** Start times of the requests the service accepted (answered other than 429), the last RATE_WINDOW_MS. */
	private readonly accepted: number[] = [];

	constructor(private readonly maxInFlight = MAX_IN_FLIGHT) {}

	/** Resolves when the request may start, holding one of the places in flight; see {@link done}. */
	async turn({ method, sent, signal, roomToWaitMs }: Turn): Promise<number> {
		if (this.inFlight < this.maxInFlight && this.queued.length === 0) this.inFlight++;
		else
			await new Promise<void>((resolve) =>
				sent > 0 ? this.queued.unshift(resolve) : this.queued.push(resolve),
			);
		let started = false;
		try {
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
				const startAt = Math.max(now, this.nextStartAt);
				this.nextStartAt = startAt + this.intervalMs;
				if (startAt > now) {
					if (now - this.raisedAt >= 1_000) {
						this.intervalMs /= PROBE_STEP;
						this.raisedAt = now;
					}
					await pause(startAt - now, signal);
					if (this.pausedUntil > performance.now()) continue;
				}
				const startedAt = performance.now();
				this.firstStartAt ??= startedAt;
				started = true;
				return startedAt;
			}
		} finally {
			if (!started) this.leave();
		}
	}

	/** The request that started at `startedAt` (from {@link turn}) is over; `throttled`: the service refused it for its rate. */
	done(startedAt: number, throttled?: { waitMs: number; refusal: unknown }): void {
		this.leave();
		const now = performance.now();
		while (this.accepted.length > 0 && this.accepted[0] < now - RATE_WINDOW_MS)
			this.accepted.shift();
		if (!throttled) {
			this.accepted.push(startedAt);
			return;
		}
		if (now + throttled.waitMs > this.pausedUntil) {
			this.pausedUntil = now + throttled.waitMs;
			this.pausedBy = throttled.refusal;
		}
		if (startedAt < this.learnedAt) return;
		// The rate the service accepted lately, if it is below the pace: a little under it, and
		// never faster than before. Early on it holds the service's burst; later refusals correct it.
		const spanMs = Math.min(RATE_WINDOW_MS, now - (this.firstStartAt ?? now));
		if (this.accepted.length >= 2 && spanMs > 0) {
			const pace = this.intervalMs > 0 ? 1 / this.intervalMs : Infinity;
			this.intervalMs = 1 / (Math.min(this.accepted.length / spanMs, pace) * UNDER_LIMIT);
		}
		this.learnedAt = now;
		this.raisedAt = this.pausedUntil;
	}

	private leave(): void {
		const next = this.queued.shift();
		if (next) next();
		else this.inFlight--;
	}
}

export interface Pacing {
	/** The execution's pace (one per execution, shared by its items); a request of its own when absent. */
	pacer?: Pacer;
	/** Stops a wait when n8n cancels the execution. */
	signal?: AbortSignal;
	/** How long a wait may be (the time left in the trigger's poll); unbounded but by MAX_WAIT_MS when absent. */
	roomToWaitMs?: () => number;
}

/** The failure to throw instead of waiting `waitMs`, when that is longer than the node waits or than `roomMs`. */
function refusedWait(
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

/** A write read back: applied (`result` stands for its answer), changed by someone else since it began, or not applied. */
export type WriteReadBack<T> =
	| { state: 'applied'; result: T }
	| { state: 'overtaken' }
	| { state: 'not-applied' };

async function readBackOf<T>(
	readBack: () => Promise<WriteReadBack<T>>,
): Promise<WriteReadBack<T> | { state: 'failed' }> {
	try {
		return await readBack();
	} catch {
		return { state: 'failed' };
	}
}

/**
 * Sends a request by `send`, in its turn, and sends it again when a resend is safe: a 429 or no
 * connection at all (any method); a 502, 503, 504 or a connection closed early (a GET); a write
 * that may have been applied only when `readBack` shows it was not; after the wait the service
 * asked (`Retry-After`) or a growing one, at most {@link MAX_TRIES} sends and {@link MAX_WAIT_MS}
 * a wait. Whatever fails in the end is thrown as a {@link FailedRequest}.
 */
export async function sendWithRetries<T>(
	send: () => Promise<T>,
	method: string,
	{ pacer = new Pacer(), signal, roomToWaitMs = () => Infinity }: Pacing = {},
	readBack?: () => Promise<WriteReadBack<T>>,
): Promise<T> {
	for (let tries = 1; ; tries++) {
		const startedAt = await pacer.turn({ method, sent: tries - 1, signal, roomToWaitMs });
		const outcome = await send().then(
			(result) => ({ result }),
			(error: unknown) => ({ error }),
		);
		if (!('error' in outcome)) {
			pacer.done(startedAt);
			return outcome.result;
		}
		const { error } = outcome;
		const verdict = verdictOn(error, method, tries, readBack !== undefined);
		const throttled = verdict.resend === true && verdict.throttled;
		pacer.done(startedAt, throttled ? { waitMs: verdict.waitMs, refusal: error } : undefined);
		// Explained as an n8n error by the caller (errors.ts requestError), with what was tried.
		if (!verdict.resend) throw new FailedRequest(error, { method, tries });
		if (verdict.resend === 'if-not-applied' && readBack) {
			const found = await readBackOf(readBack);
			if (found.state === 'applied') return found.result;
			if (found.state !== 'not-applied' || tries >= MAX_TRIES)
				throw new FailedRequest(error, { method, tries, readBack: found.state });
		}
		if (tries >= MAX_TRIES) throw new FailedRequest(error, { method, tries });
		const declined = refusedWait(error, { method, tries }, verdict.waitMs, roomToWaitMs());
		if (declined) throw declined;
		// A 429's wait is the whole execution's (the pacer holds every request until then).
		if (!throttled) await pause(verdict.waitMs, signal);
	}
}
