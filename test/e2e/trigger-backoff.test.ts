/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
/**
 * n8n 2.40.7's poll scheduler backing the trigger off by the failure cause the node declares
 * (n8n's workflows/triggers/poll-backoff-policy: an actionable cause waits the 30-minute maximum;
 * a timed one at least the wait it carries). Its back-off runs with the durable scheduler, its
 * poll triggers and durable cursors on (poll-backoff.service: N8N_SCHEDULER_ENABLED,
 * N8N_SCHEDULER_POLL_TRIGGERS_ENABLED, N8N_POLLER_DURABLE_CURSORS_ENABLED, and the workflow
 * publication service, on by default). Two published triggers poll every minute (n8n's
 * shortest), each with an API key of its own: once activated, one key is revoked, and the
 * other's next poll is answered 429 with a Retry-After of 90 seconds. Read in the sandbox's
 * request log (when each key's requests came) and in n8n's log (json). About 4 minutes.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { startSandbox, type LoggedRequest, type Sandbox } from 'compliance-records-sandbox';
import { DEMO_OWNER, everyMinuteTrigger } from '../helpers/n8n/demo';
import { freePort, N8n } from '../helpers/n8n/instance';
import { ARTIFACTS_DIR, PROJECT_ROOT, waitFor } from './environment';

const RETRY_AFTER_SECONDS = 90;

let sandbox: Sandbox;
let n8n: N8n;
let logFile: string;
const keys = { revoked: '', limited: '' };

const requestsWith = (key: string): LoggedRequest[] =>
	sandbox.requests().filter((request) => request.headers.authorization === `Bearer ${key}`);

beforeAll(async () => {
	sandbox = await startSandbox({ clients: 20, controls: true });
	const folder = join(ARTIFACTS_DIR, 'backoff');
	rmSync(folder, { recursive: true, force: true });
	mkdirSync(folder, { recursive: true });
	logFile = join(folder, 'n8n.log');
	n8n = N8n.launch({
		userFolder: folder,
		linkedPackage: PROJECT_ROOT,
		port: await freePort(),
		brokerPort: await freePort(),
		filesDir: join(folder, 'files'),
		logFile,
		env: {
			N8N_SCHEDULER_ENABLED: 'true',
			N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
			N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
			N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
			N8N_LOG_FORMAT: 'json',
		},
	});
	await n8n.ready(240_000);
	await n8n.rest.signInOwner(DEMO_OWNER);
	for (const name of Object.keys(keys) as Array<keyof typeof keys>) {
		keys[name] = sandbox.createApiKey({ name });
		const credential = await n8n.rest.createCredential(name, 'complianceRecordsApi', {
			baseUrl: sandbox.baseUrl,
			apiKey: keys[name],
		});
		const trigger = everyMinuteTrigger('CUSTOM.complianceRecordsTrigger', `Trigger (${name} key)`, {
			complianceRecordsApi: credential,
		});
		await n8n.rest.publishWorkflow({ name: `Back-off, ${name} key`, nodes: [trigger] });
	}
}, 300_000);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
});

/** n8n's "Poll failed; backing off" records (json log lines), oldest first. */
function backOffs(): Array<{ cause?: string; type: string; delayMs: number }> {
	return readFileSync(logFile, 'utf8')
		.split('\n')
		.filter((line) => line.includes('Poll failed; backing off'))
		.map(
			(line) =>
				(JSON.parse(line) as { metadata: { cause?: string; type: string; delayMs: number } })
					.metadata,
		);
}

test('a revoked key backs the trigger off for 30 minutes; a 429 delays its next poll at least the Retry-After', async () => {
	// Both triggers took their first poll on activation: the service's time, then the changes.
	for (const key of Object.values(keys)) {
		await waitFor(
			'the activation poll of each trigger',
			async () =>
				requestsWith(key).filter((request) => request.status === 200).length >= 2
					? true
					: undefined,
			{
				timeoutMs: 90_000,
				intervalMs: 1_000,
			},
		);
	}
	sandbox.revokeApiKey(keys.revoked);
	sandbox.injectFaults({
		count: 1,
		status: 429,
		retryAfterSeconds: RETRY_AFTER_SECONDS,
		apiKey: keys.limited,
	});

	const answered = (key: string, status: number) =>
		requestsWith(key).find((request) => request.status === status);
	const refusals = await waitFor(
		'the refused polls',
		async () => {
			const refusedKey = answered(keys.revoked, 401);
			const limited = answered(keys.limited, 429);
			return refusedKey && limited ? { refusedKey, limited } : undefined;
		},
		{ timeoutMs: 150_000, intervalMs: 1_000 },
	);

	// The limited trigger polls again once the wait has passed, not before.
	const resumed = await waitFor(
		'the limited trigger polling again',
		async () => {
			return requestsWith(keys.limited).find(
				(request) => request.receivedAt > (refusals.limited.answeredAt as number),
			);
		},
		{ timeoutMs: (RETRY_AFTER_SECONDS + 60) * 1000, intervalMs: 1_000 },
	);
	expect(resumed.receivedAt - (refusals.limited.answeredAt as number)).toBeGreaterThanOrEqual(
		RETRY_AFTER_SECONDS * 1000,
	);
	expect(resumed.status).toBe(200);

	// A poll later at least (they come a minute apart), the revoked trigger has not polled again.
	const quietUntil = (refusals.refusedKey.answeredAt as number) + 65_000;
	await new Promise((resolve) => setTimeout(resolve, Math.max(0, quietUntil - Date.now())));
	expect(
		requestsWith(keys.revoked).filter(
			(request) => request.receivedAt > (refusals.refusedKey.answeredAt as number),
		),
	).toEqual([]);

	expect(backOffs()).toEqual(
		expect.arrayContaining([
			expect.objectContaining({
				type: 'permanent',
				cause: 'credential-invalid',
				delayMs: 30 * 60 * 1000,
			}),
			expect.objectContaining({
				type: 'transient',
				cause: 'rate-limited',
				delayMs: expect.any(Number),
			}),
		]),
	);
	const rateLimited = backOffs().find((backOff) => backOff.cause === 'rate-limited');
	expect(rateLimited?.delayMs).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS * 1000);
}, 420_000);
