import { retryAfterMs } from './answers';
import {
	answerIn,
	CLOSED_EARLY,
	FailedRequest,
	MAY_HAVE_ARRIVED,
	networkCode,
	UNREACHABLE,
} from './failures';
import { Pacer, pause, refusedWait } from './pacing';

/* The one rule for what is sent again: every request of both nodes goes through sendWithRetries
 * (the action node's routed requests, and serviceRequest). */

const MAX_TRIES = 5;

/** The first wait without a `Retry-After`, doubled at each try (with jitter). */
const FIRST_BACKOFF_MS = 1_000;

/** A gateway's answers: the service behind it may or may not have acted. */
const GATEWAY_STATUSES = [502, 503, 504];

/** Nothing reached the service, so any method is sent again; but a host name that does not exist (ENOTFOUND) will not within a minute. */
const RESENDABLE_UNSENT = new Set(UNREACHABLE.filter((code) => code !== 'ENOTFOUND'));

/** After a failed try: fail, send it again after `waitMs`, or (a write that may have been applied) only if read back as not applied. */
type Verdict =
	| { resend: false }
	| { resend: true; waitMs: number; throttled: boolean }
	| { resend: 'if-not-applied'; waitMs: number };

/** Doubled per try, with jitter so that items do not retry together. */
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

export interface Pacing {
	/** The execution's pace (one per execution, shared by its items); a request of its own when absent. */
	pacer?: Pacer;
	signal?: AbortSignal;
	/** How long a wait may be (the time left in the trigger's poll); at most a minute when absent (pacing.ts). */
	roomToWaitMs?: () => number;
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
 * Sends again only what is safe: a 429 or nothing sent (any method); a 5xx gateway answer or a
 * closed connection (a GET); a write that may have acted only once read back as not applied.
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
