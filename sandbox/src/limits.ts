/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * A real service's limits, played for every API request (not the control routes): time added to
 * each answer, a rate limit with a burst that answers 429 with Retry-After, gateway errors (502,
 * 503) at a given rate; and what it counted: requests, refusals, the most in flight at once.
 * A refused request changes nothing. Off until set.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ErrorAnswer } from './errorFormat';
import { Random } from './seed';

export interface RateLimit {
	/** Requests accepted per `perSeconds`. */
	requests: number;
	/** Default 1: `{ requests: 100, perSeconds: 60 }` is 100 requests a minute. */
	perSeconds?: number;
	/** Requests accepted at once after a quiet spell (the bucket's size); default `requests`. */
	burst?: number;
}

export interface LimitSettings {
	/** A token bucket over every API request; null: none. */
	rateLimit?: RateLimit | null;
	/** Milliseconds added before every API request is answered (refusals included); 0: none. */
	latencyMs?: number;
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

const UNAVAILABLE: Record<502 | 503, string> = {
	502: 'Bad gateway: the service behind the gateway did not answer (a limit played by the sandbox)',
	503: 'Service unavailable (a limit played by the sandbox): try again later',
};

export class Limits {
	private settings: Required<Omit<LimitSettings, 'rateLimit'>> & { rateLimit: RateLimit | null } = {
		rateLimit: null,
		latencyMs: 0,
		unavailableRate: 0,
	};

	private tokens = 0;

	private filledAt = 0;

	private inFlight = 0;

	private counted: Traffic = emptyTraffic();

	private nextUnavailable: 502 | 503 = 502;

	constructor(private readonly random: Random) {}

	/** Changes the settings given; the others stay. The bucket starts full. */
	set(settings: LimitSettings): void {
		const { rateLimit, latencyMs, unavailableRate } = settings;
		if (rateLimit) {
			const { requests, perSeconds = 1, burst = requests } = rateLimit;
			for (const [name, value] of Object.entries({ requests, perSeconds, burst })) {
				if (typeof value !== 'number' || !(value > 0))
					throw new RangeError(`rateLimit.${name} must be a number above 0`);
			}
			if (burst < 1) throw new RangeError('rateLimit.burst must be at least 1');
			this.settings.rateLimit = { requests, perSeconds, burst };
			this.tokens = burst;
			this.filledAt = performance.now();
		} else if (rateLimit === null) {
			this.settings.rateLimit = null;
		}
		if (latencyMs !== undefined) {
			if (!Number.isInteger(latencyMs) || latencyMs < 0)
				throw new RangeError('latencyMs must be a whole number, 0 or more');
			this.settings.latencyMs = latencyMs;
		}
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

	/** Waits the added latency, then the refusal to answer (429, 502, 503), or undefined to handle the request. */
	async judge(signal: AbortSignal): Promise<ErrorAnswer | undefined> {
		if (this.settings.latencyMs > 0) await sleep(this.settings.latencyMs, undefined, { signal });
		const limited = this.takeToken();
		if (limited) {
			this.counted.refused[429]++;
			return limited;
		}
		if (this.settings.unavailableRate > 0 && this.random.float() < this.settings.unavailableRate) {
			const status = this.nextUnavailable;
			this.nextUnavailable = status === 502 ? 503 : 502;
			this.counted.refused[status]++;
			return { status, message: UNAVAILABLE[status] };
		}
		return undefined;
	}

	/** Takes a token from the bucket; when it is empty, the 429 to answer, with the whole seconds until the next token. */
	private takeToken(): ErrorAnswer | undefined {
		const limit = this.settings.rateLimit;
		if (!limit) return undefined;
		const { requests, perSeconds = 1, burst = requests } = limit;
		const perMs = requests / (perSeconds * 1000);
		const now = performance.now();
		this.tokens = Math.min(burst, this.tokens + (now - this.filledAt) * perMs);
		this.filledAt = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return undefined;
		}
		const retryAfter = Math.max(1, Math.ceil((1 - this.tokens) / perMs / 1000));
		return {
			status: 429,
			message: `Rate limit of ${requests} requests per ${perSeconds === 1 ? 'second' : `${perSeconds} seconds`} exceeded: retry after ${retryAfter} seconds`,
			headers: { 'retry-after': String(retryAfter) },
		};
	}
}

const emptyTraffic = (): Traffic => ({
	requests: 0,
	maxInFlight: 0,
	refused: { 429: 0, 502: 0, 503: 0 },
});
