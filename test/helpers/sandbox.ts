/* eslint-disable @n8n/community-nodes/no-restricted-imports --
   development tooling, not a node: runs in Node, not in n8n */
import { setTimeout as sleep } from 'node:timers/promises';

import {
	startSandbox,
	type LimitSettings,
	type LoggedRequest,
	type Sandbox,
	type SandboxOptions,
} from 'compliance-records-sandbox';
import { createdCounts, postsIn } from './bulkCreate';
import { credentialsFor, type CredentialStore } from './credentials';

/**
 * A sandbox of the service for one test file, on random ports: started before the file's tests,
 * its request log cleared before each test, closed after. Returns accessors because the
 * sandbox exists only once `beforeAll` has run.
 */
export function useSandbox(options: SandboxOptions = {}): {
	sandbox: () => Sandbox;
	credentials: () => CredentialStore;
	/** Credentials with a new API key of the firm's: what Create or Update learned in this process is not theirs. */
	credentialsWithNewKey: () => CredentialStore;
} {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox(options);
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => sandbox?.clearRequests());
	const current = () => {
		if (!sandbox) throw new Error('The sandbox is not started yet');
		return sandbox;
	};
	return {
		sandbox: current,
		credentials: () => credentialsFor(current()),
		credentialsWithNewKey: () =>
			credentialsFor({ ...current(), apiKey: current().createApiKey({ name: 'Own key' }) }),
	};
}

/**
 * {@link useSandbox} with its test controls, put back after each test (no faults, rate limit,
 * latency or unavailability; traffic counted afresh), and what a bulk Create sent and created.
 */
export function useControlledSandbox(options: SandboxOptions = {}) {
	const used = useSandbox({ ...options, controls: true });
	afterEach(() => {
		used.sandbox().clearFaults();
		used.sandbox().setLimits({ rateLimit: null, latencyMs: 0, unavailableRate: 0 });
		used.sandbox().resetTraffic();
	});
	return {
		...used,
		/** The POSTs in the request log. */
		posts: () => postsIn(used.sandbox().requests()),
		/** How often each client was created (answered 201), by last name. */
		created: () => createdCounts(used.sandbox().requests()),
	};
}

/**
 * The `message` the service answered to a request it refused (the last request unless `index`
 * says which), as its request log recorded it. Tests check that this message reaches the user,
 * so the sandbox may change its wording without breaking them.
 */
export function answeredMessage(sandbox: Sandbox, index = -1): string {
	const { status, errorMessage } = sandbox.requests().at(index) ?? {};
	expect({ status, errorMessage }).toEqual({
		status: expect.any(Number),
		errorMessage: expect.any(String),
	});
	return errorMessage as string;
}

/**
 * How an error's description begins: the service's words from its request log ({@link answeredMessage}),
 * as one sentence.
 */
export function serviceSaid(sandbox: Sandbox, index = -1): string {
	const message = answeredMessage(sandbox, index);
	return `The service said: ${/[.!?…]$/.test(message) ? message : `${message}.`}`;
}

export interface ExpectedRequest {
	method: string;
	path: string;
	query?: Record<string, string | string[]>;
	body?: unknown;
	/** The bearer token the request must carry. */
	bearer: string;
}

/**
 * What the service received matches exactly: method, path, query and body, and the headers the
 * node sends with every request (its credential, the API version, JSON).
 */
export function expectReceived(
	request: LoggedRequest | undefined,
	expected: ExpectedRequest,
): void {
	expect(request).toBeDefined();
	const { method, path, query, body, headers } = request as LoggedRequest;
	expect({ method, path, query, body }).toEqual({
		method: expected.method,
		path: expected.path,
		query: expected.query ?? {},
		body: expected.body,
	});
	expect(headers.authorization).toBe(`Bearer ${expected.bearer}`);
	expect(headers['accept-version']).toBe('1.0.0');
	expect(headers.accept).toBe('application/json');
	if (expected.body !== undefined) expect(headers['content-type']).toMatch(/^application\/json/);
}

/** Runs `run`, and sets `limits` once the sandbox has received `count` requests meanwhile: a limit that changes mid-run. */
export async function withLimitsChangedAfter<T>(
	sandbox: Sandbox,
	count: number,
	limits: LimitSettings,
	run: () => Promise<T>,
): Promise<T> {
	let running = true;
	const watching = (async () => {
		while (running && sandbox.requests().length < count) await sleep(5);
		if (running) sandbox.setLimits(limits);
	})();
	try {
		return await run();
	} finally {
		running = false;
		await watching;
	}
}
