/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * A real service's limits, played for every API request (not the control routes): time added to
 * each answer, a rate limit (a token bucket, or a sliding or fixed window) that answers 429 with
 * Retry-After and can tell itself in headers, gateway errors (502, 503) at a given rate; and what
 * it counted: requests, refusals, the most in flight at once. A refused request changes nothing.
 * Off until set.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ErrorAnswer } from './errorFormat';
import { Random } from './seed';

/** How a rate limit is kept: a token bucket (a burst, then a steady rate), or a count per window, sliding or fixed. */
export const RATE_LIMIT_SHAPES = ['token-bucket', 'sliding-window', 'fixed-window'] as const;
export type RateLimitShape = (typeof RATE_LIMIT_SHAPES)[number];

/** Headers that tell a client the limit on every API answer: the IETF draft's `RateLimit-Policy` and `RateLimit`, or `X-RateLimit-*`. */
export const RATE_LIMIT_HEADERS = ['ratelimit', 'x-ratelimit'] as const;
export type RateLimitHeaders = (typeof RATE_LIMIT_HEADERS)[number];

export interface RateLimit {
	/** Requests accepted per `perSeconds`. */
	requests: number;
	/** Default 1: `{ requests: 100, perSeconds: 60 }` is 100 requests a minute. */
	perSeconds?: number;
	/** Default `token-bucket`. */
	shape?: RateLimitShape;
	/** A token bucket's size: requests accepted at once after a quiet spell, at least 1; default `requests`. */
	burst?: number;
	/** Default none. */
	headers?: RateLimitHeaders;
}

export interface LimitSettings {
	/** A rate limit over every API request; null: none. */
	rateLimit?: RateLimit | null;
	/** Milliseconds added before every API request is answered (refusals included); 0: none. */
	latencyMs?: number;
	/** Up to this many milliseconds more for each API request, drawn at random, as a network's delays vary; 0: none. */
	latencySpreadMs?: number;
	/** The share of API requests (0 to 1) answered 502 or 503 (in turn) instead of being handled; 0: none. */
	unavailableRate?: number;
}

export interface Traffic {
	/** API requests received. */
	requests: number;
	/** The most API requests in flight at once (received and not yet answered). */
	maxInFlight: number;
	/** Requests refused by the limits above, by status (injected faults are not counted). */
	refused: { 429: number; 502: number; 503: number };
}

/** What a limit says of a request arriving now, and the headers of its answer. */
export interface Judgement {
	refusal?: ErrorAnswer;
	headers: Record<string, string>;
}

const UNAVAILABLE: Record<502 | 503, string> = {
	502: 'Bad gateway: the service behind the gateway did not answer (a limit played by the sandbox)',
	503: 'Service unavailable (a limit played by the sandbox): try again later',
};

/** A rate limit's state: `take` a place for a request arriving at `now` (ms), or the ms until one is free. */
interface Limiter {
	take(now: number): number | undefined;
	/** Requests it would accept now, and ms until it is whole again (empty windows, a full bucket). */
	quota(now: number): { remaining: number; resetMs: number };
}

class TokenBucket implements Limiter {
	private tokens: number;

	constructor(
		private readonly perMs: number,
		private readonly burst: number,
		private filledAt: number,
	) {
		this.tokens = burst;
	}

	take(now: number): number | undefined {
		this.refill(now);
		if (this.tokens < 1) return (1 - this.tokens) / this.perMs;
		this.tokens -= 1;
		return undefined;
	}

	quota(now: number) {
		this.refill(now);
		return { remaining: Math.floor(this.tokens), resetMs: (this.burst - this.tokens) / this.perMs };
	}

	private refill(now: number): void {
		this.tokens = Math.min(this.burst, this.tokens + (now - this.filledAt) * this.perMs);
		this.filledAt = now;
	}
}

/** At most `limit` requests in any `windowMs`: each accepted one holds its place for a window. */
class SlidingWindow implements Limiter {
	private readonly accepted: number[] = [];

	constructor(
		private readonly limit: number,
		private readonly windowMs: number,
	) {}

	take(now: number): number | undefined {
		this.expire(now);
		if (this.accepted.length >= this.limit) return this.accepted[0] + this.windowMs - now;
		this.accepted.push(now);
		return undefined;
	}

	quota(now: number) {
		this.expire(now);
		const resetMs = this.accepted.length > 0 ? this.accepted.at(-1)! + this.windowMs - now : 0;
		return { remaining: this.limit - this.accepted.length, resetMs };
	}

	private expire(now: number): void {
		while (this.accepted.length > 0 && this.accepted[0] <= now - this.windowMs)
			this.accepted.shift();
	}
}

/** At most `limit` requests in each window of `windowMs`, the windows counted from when the limit was set. */
class FixedWindow implements Limiter {
	private count = 0;

	constructor(
		private readonly limit: number,
		private readonly windowMs: number,
		private windowStart: number,
	) {}

	take(now: number): number | undefined {
		this.roll(now);
		if (this.count >= this.limit) return this.windowStart + this.windowMs - now;
		this.count++;
		return undefined;
	}

	quota(now: number) {
		this.roll(now);
		return { remaining: this.limit - this.count, resetMs: this.windowStart + this.windowMs - now };
	}

	private roll(now: number): void {
		const passed = Math.floor((now - this.windowStart) / this.windowMs);
		if (passed < 1) return;
		this.windowStart += passed * this.windowMs;
		this.count = 0;
	}
}

function limiterOf({ requests, perSeconds = 1, shape, burst = requests }: RateLimit): Limiter {
	const windowMs = perSeconds * 1000;
	if (shape === 'sliding-window') return new SlidingWindow(requests, windowMs);
	if (shape === 'fixed-window') return new FixedWindow(requests, windowMs, performance.now());
	return new TokenBucket(requests / windowMs, burst, performance.now());
}

function checkedMs(name: string, ms: number): number {
	if (!Number.isInteger(ms) || ms < 0)
		throw new RangeError(`${name} must be a whole number, 0 or more`);
	return ms;
}

function checkedRateLimit(rateLimit: RateLimit): RateLimit {
	const { requests, perSeconds = 1, shape = 'token-bucket', burst, headers } = rateLimit;
	for (const [name, value] of Object.entries({ requests, perSeconds, burst: burst ?? requests })) {
		if (typeof value !== 'number' || !(value > 0))
			throw new RangeError(`rateLimit.${name} must be a number above 0`);
	}
	if (!RATE_LIMIT_SHAPES.includes(shape))
		throw new RangeError(`rateLimit.shape must be one of ${RATE_LIMIT_SHAPES.join(', ')}`);
	if (burst !== undefined && (shape !== 'token-bucket' || burst < 1))
		throw new RangeError('rateLimit.burst must be at least 1, and only for a token-bucket');
	if (shape !== 'token-bucket' && !Number.isInteger(requests))
		throw new RangeError('rateLimit.requests must be a whole number for a window');
	if (headers !== undefined && !RATE_LIMIT_HEADERS.includes(headers))
		throw new RangeError(`rateLimit.headers must be one of ${RATE_LIMIT_HEADERS.join(', ')}`);
	return {
		requests,
		perSeconds,
		shape,
		...(shape === 'token-bucket' && { burst: burst ?? requests }),
		headers,
	};
}

export class Limits {
	private settings: Required<Omit<LimitSettings, 'rateLimit'>> & { rateLimit: RateLimit | null } = {
		rateLimit: null,
		latencyMs: 0,
		latencySpreadMs: 0,
		unavailableRate: 0,
	};

	private limiter?: Limiter;

	private inFlight = 0;

	private counted: Traffic = emptyTraffic();

	private nextUnavailable: 502 | 503 = 502;

	constructor(private readonly random: Random) {}

	/** Changes the settings given; the others stay. A rate limit starts whole (a full bucket, empty windows). */
	set(settings: LimitSettings): void {
		const { rateLimit, latencyMs, latencySpreadMs, unavailableRate } = settings;
		if (rateLimit) {
			this.settings.rateLimit = checkedRateLimit(rateLimit);
			this.limiter = limiterOf(this.settings.rateLimit);
		} else if (rateLimit === null) {
			this.settings.rateLimit = null;
			this.limiter = undefined;
		}
		if (latencyMs !== undefined) this.settings.latencyMs = checkedMs('latencyMs', latencyMs);
		if (latencySpreadMs !== undefined)
			this.settings.latencySpreadMs = checkedMs('latencySpreadMs', latencySpreadMs);
		if (unavailableRate !== undefined) {
			if (typeof unavailableRate !== 'number' || !(unavailableRate >= 0 && unavailableRate <= 1))
				throw new RangeError('unavailableRate must be from 0 to 1');
			this.settings.unavailableRate = unavailableRate;
		}
	}

	/** What was counted since the start or the last {@link resetTraffic}. */
	traffic(): Traffic {
		return structuredClone(this.counted);
	}

	resetTraffic(): void {
		this.counted = emptyTraffic();
		this.counted.maxInFlight = this.inFlight;
	}

	/** A request arrived: counts it in flight until `done` is called. */
	arrived(): () => void {
		this.counted.requests++;
		this.inFlight++;
		this.counted.maxInFlight = Math.max(this.counted.maxInFlight, this.inFlight);
		let done = false;
		return () => {
			if (!done) this.inFlight--;
			done = true;
		};
	}

	/**
	 * Waits the added latency (and its spread), then judges the request: the refusal to answer (429, 502, 503) or
	 * none (handle it), and the rate-limit headers its answer carries, if set.
	 */
	async judge(signal: AbortSignal): Promise<Judgement> {
		const { latencyMs, latencySpreadMs } = this.settings;
		const delayMs = latencyMs + (latencySpreadMs > 0 ? this.random.int(latencySpreadMs + 1) : 0);
		if (delayMs > 0) await sleep(delayMs, undefined, { signal });
		const now = performance.now();
		const waitMs = this.limiter?.take(now);
		const headers = this.limitHeaders(now);
		if (waitMs !== undefined) {
			this.counted.refused[429]++;
			const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
			const { requests, perSeconds } = this.settings.rateLimit!;
			const per = perSeconds === 1 ? 'second' : `${perSeconds} seconds`;
			return {
				refusal: {
					status: 429,
					message: `Rate limit of ${requests} requests per ${per} exceeded: retry after ${retryAfter} seconds`,
					headers: { ...headers, 'retry-after': String(retryAfter) },
				},
				headers,
			};
		}
		if (this.settings.unavailableRate > 0 && this.random.float() < this.settings.unavailableRate) {
			const status = this.nextUnavailable;
			this.nextUnavailable = status === 502 ? 503 : 502;
			this.counted.refused[status]++;
			return { refusal: { status, message: UNAVAILABLE[status], headers }, headers };
		}
		return { headers };
	}

	/** The limit and where it stands, in the format set: limit per window, remaining, seconds to reset. */
	private limitHeaders(now: number): Record<string, string> {
		const limit = this.settings.rateLimit;
		if (!this.limiter || !limit?.headers) return {};
		const { remaining, resetMs } = this.limiter.quota(now);
		const reset = String(Math.ceil(resetMs / 1000));
		return limit.headers === 'ratelimit'
			? {
					'ratelimit-policy': `"sandbox";q=${limit.requests};w=${limit.perSeconds}`,
					ratelimit: `"sandbox";r=${remaining};t=${reset}`,
				}
			: {
					'x-ratelimit-limit': String(limit.requests),
					'x-ratelimit-remaining': String(remaining),
					'x-ratelimit-reset': reset,
				};
	}
}

const emptyTraffic = (): Traffic => ({
	requests: 0,
	maxInFlight: 0,
	refused: { 429: 0, 502: 0, 503: 0 },
});
