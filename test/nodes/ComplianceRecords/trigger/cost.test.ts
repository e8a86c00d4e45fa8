/* eslint-disable no-console -- development tooling: runs in Node, not in n8n; prints what it measures */
import { useSandbox } from '../../../helpers/sandbox';
import { createTriggerPoller, triggerRequests } from '../../../helpers/trigger';

/*
 * What a poll costs on a firm of 100,000 clients: with no change, one request, and a saved
 * state that does not grow with the firm. (Review Due remembers the clients inside its window:
 * measured here for the record.)
 */

const { sandbox, credentials } = useSandbox({ clients: 100_000, controls: true });

it.each(['clientModified', 'amlDeterminationCompleted'])(
	'%s: one request per poll when nothing changed',
	async (event) => {
		const poller = createTriggerPoller({ parameters: { event }, credentials: credentials() });
		await poller.poll();
		for (let poll = 0; poll < 3; poll++) {
			sandbox().clearRequests();
			expect(await poller.poll()).toEqual([]);
			const requests = triggerRequests(sandbox());
			expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
				'GET /clients',
			]);
			expect(requests[0].query).toEqual({ limit: '200', sinceModifiedAt: expect.any(String) });
		}
		expect(JSON.stringify(poller.saved()).length).toBeLessThan(300);
	},
);

it('reviewDue: one full scan on the first poll of the day, then one request per poll', async () => {
	const poller = createTriggerPoller({
		parameters: { event: 'reviewDue', days: 30 },
		credentials: credentials(),
		timezone: 'UTC',
	});
	sandbox().clearRequests();
	await poller.poll();
	expect(triggerRequests(sandbox())).toHaveLength(100_000 / 200 + 1); // 500 full pages, then the empty one
	for (let poll = 0; poll < 3; poll++) {
		sandbox().clearRequests();
		expect(await poller.poll()).toEqual([]);
		expect(triggerRequests(sandbox())).toHaveLength(1);
	}
	const due = Object.values(poller.saved().due as Record<string, string>).join('').length / 8;
	const bytes = JSON.stringify(poller.saved()).length;
	console.log(
		`reviewDue on 100,000 clients: ${due} inside the 30-day window, saved state ${bytes} bytes (${(bytes / due).toFixed(2)} per client)`,
	);
	expect(bytes / due).toBeLessThan(9);
});
