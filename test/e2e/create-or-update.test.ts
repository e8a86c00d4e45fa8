/**
 * Client > Create or Update in production, in the real n8n 2.40.7: a published webhook workflow
 * run twice. n8n saves the node's index in the workflow's static data after the first
 * execution, and the second reads it: the changes since and the update.
 */
import { waitFor } from '../helpers/n8n/instance';
import { publishUpsertWebhook } from '../helpers/n8n/upsertWebhook';
import { e2e, signedIn } from './environment';

test('a webhook workflow run twice in production: the second execution costs the changes since and the update', async () => {
	const { n8nUrl, sandbox } = e2e();
	const workflow = await publishUpsertWebhook(await signedIn(), {
		n8nUrl,
		nodeType: 'CUSTOM.complianceRecords',
		sandbox,
	});
	const { client } = workflow;

	const first = await workflow.execute('2027-10-31');

	expect(first.output).toMatchObject({
		id: client.id,
		referenceNumber: client.referenceNumber,
		state: 'PROSPECT', // 'Status' is the new client's: an existing one keeps its own
		nextReviewDate: '2027-10-31',
	});
	// The create refused, the firm listed (a page of 200 clients, and more), the update.
	expect(first.sent[0]).toBe('POST /clients 409');
	expect(first.sent.slice(1, -1)).toEqual(
		Array(Math.max(2, first.sent.length - 2)).fill('GET /clients 200'),
	);
	expect(first.sent.at(-1)).toBe(`PATCH /clients/${client.id} 200`);
	// Saved once the execution is over: keyed hashes and client IDs, no reference number.
	const index = JSON.stringify(
		await waitFor('the index n8n saves after the execution', workflow.savedIndex, {
			timeoutMs: 10_000,
			intervalMs: 200,
		}),
	);
	expect(index).toContain(client.id);
	expect(index).not.toContain(client.referenceNumber);

	const second = await workflow.execute('2027-11-30');

	expect(second.output).toMatchObject({
		id: client.id,
		referenceNumber: client.referenceNumber,
		nextReviewDate: '2027-11-30',
	});
	expect(second.sent).toEqual([
		'GET /clients changed since 200',
		`PATCH /clients/${client.id} 200`,
	]);
});
