/**
 * Client > Create or Update in production, in the real n8n 2.40.7 (regular mode): what the node
 * learned stays in the n8n process, and nothing of it in the workflow, whose static data n8n does
 * not always hand the execution and yet saves back whole.
 */
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
	expect(await workflow.staticData()).toEqual({});
});

/*
 * n8n 2.40.7 resumes an execution that waited 65 s or more from the execution's own copy of the
 * workflow, without its static data (wait-tracker: workflowRunner.run(data, false, ...)), and
 * saves whatever that execution changed over the workflow's whole static data. A Wait of 66 s:
 * the shortest n8n does not sleep through in the execution.
 */
test("an execution resumed after a Wait leaves the other nodes' saved state as it was", async () => {
	const { n8nUrl, sandbox } = e2e();
	const workflow = await publishUpsertWebhook(await signedIn(), {
		n8nUrl,
		nodeType: 'CUSTOM.complianceRecords',
		sandbox,
		waitSeconds: 66,
	});

	const run = await workflow.execute('2027-12-31');

	expect(run.output).toMatchObject({ id: workflow.client.id, nextReviewDate: '2027-12-31' });
	expect(run.sent[0]).toBe('POST /clients 409');
	expect(run.sent.at(-1)).toBe(`PATCH /clients/${workflow.client.id} 200`);
	// What the Code node kept before the Wait, saved when the execution began to wait.
	expect(await workflow.staticData()).toEqual({ global: { mark: '2027-12-31' } });
});
