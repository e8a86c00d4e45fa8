import type { IDataObject } from 'n8n-workflow';

import { addDays } from '../../../helpers/calendar';
import { COMMIT_LAG_MS } from '../../../../nodes/ComplianceRecords/helpers/serviceTime';
import { clientKey } from '../../../../nodes/ComplianceRecords/trigger/clientKeys';
import { useSandbox } from '../../../helpers/sandbox';
import { createTriggerPoller } from '../../../helpers/trigger';
import { clientIds, listAll, touchClient } from '../../../helpers/serviceApi';

/*
 * Upgrades keep their place: a workflow active while the package is upgraded from 0.1.0 goes on
 * from the state 0.1.0 saved (format 1, written out here as 0.1.0 wrote it), emitting what 0.1.0
 * had not and nothing it had.
 */

const { sandbox, credentials } = useSandbox({ clients: 300, controls: true });
let ids: string[];
beforeAll(async () => {
	ids = await clientIds(sandbox());
});
afterEach(() => sandbox().setClock({ frozenAt: null }));

const pairs = (items: IDataObject[]) =>
	items.map((item) => `${item.id}@${item.lastModifiedAt}`).sort();

it('Client Created or Modified: goes on from a 0.1.0 state, nothing lost, nothing repeated', async () => {
	// 0.1.0's last poll emitted three clients changed at the same instant T and saved: the
	// watermark T less 5 s, and those three remembered at T (offset 5000 ms, base 36).
	const T = Date.parse(sandbox().now());
	sandbox().setClock({ frozenAt: new Date(T).toISOString() });
	const emittedBy010 = [ids[0], ids[1], ids[2]];
	for (const id of emittedBy010) await touchClient(sandbox(), id);
	const savedBy010 = {
		version: 1,
		event: 'clientModified',
		generation: 7,
		since: new Date(T - COMMIT_LAG_MS).toISOString(),
		seen: { [(5_000).toString(36)]: emittedBy010.map(clientKey).sort().join('') },
	};

	// After that poll and before the upgrade's first: another change at T, and one later.
	const tie = await touchClient(sandbox(), ids[3]);
	sandbox().setClock({ frozenAt: new Date(T + 2_000).toISOString() });
	const later = await touchClient(sandbox(), ids[4]);
	sandbox().setClock({ frozenAt: null, offsetMs: 60_000 });

	const poller = createTriggerPoller({
		parameters: { event: 'clientModified' },
		credentials: credentials(),
	});
	poller.load(savedBy010);
	expect(pairs(await poller.poll())).toEqual(pairs([tie, later]));
	expect(poller.saved()).toMatchObject({ version: 2, event: 'clientModified', generation: 8 });
	expect(await poller.poll()).toEqual([]);
	const again = await touchClient(sandbox(), ids[0]);
	expect(pairs(await poller.poll())).toEqual(pairs([again]));
	sandbox().setClock({ offsetMs: 0 });
});

it('Review Due: goes on from a 0.1.0 state, nothing lost, nothing repeated', async () => {
	const today = new Date().toISOString().slice(0, 10);
	const clients = await listAll(sandbox());
	const window = { from: today, to: addDays(today, 30) };
	const inWindow = clients.filter(
		(client) =>
			typeof client.nextReviewDate === 'string' &&
			client.nextReviewDate >= window.from &&
			client.nextReviewDate <= window.to,
	);
	expect(inWindow.length).toBeGreaterThan(3);
	const due: Record<string, string> = {};
	for (const client of inWindow)
		due[client.nextReviewDate as string] =
			(due[client.nextReviewDate as string] ?? '') + clientKey(client.id as string);
	for (const date of Object.keys(due)) due[date] = (due[date].match(/.{8}/g) ?? []).sort().join('');
	// 0.1.0 scanned the firm today: every client inside the window is handled.
	const savedBy010 = {
		version: 1,
		event: 'reviewDue',
		generation: 3,
		since: new Date(Date.parse(sandbox().now()) - COMMIT_LAG_MS).toISOString(),
		reviewDays: 30,
		scannedOn: today,
		due,
	};

	const undated = clients
		.filter((client) => !client.nextReviewDate)
		.map((client) => client.id as string);
	const moved = await touchClient(sandbox(), undated[0], { nextReviewDate: addDays(today, 9) });
	await touchClient(sandbox(), inWindow[0].id as string); // already due, date unchanged: not again

	const poller = createTriggerPoller({
		parameters: { event: 'reviewDue', days: 30 },
		credentials: credentials(),
		timezone: 'UTC',
	});
	poller.load(savedBy010);
	sandbox().clearRequests();
	expect(pairs(await poller.poll())).toEqual(pairs([moved]));
	expect(
		sandbox()
			.requests()
			.every((request) => request.query.sinceModifiedAt !== undefined),
	).toBe(true); // no new scan today
	expect(poller.saved()).toMatchObject({ version: 2, event: 'reviewDue', scannedOn: today });
	expect(await poller.poll()).toEqual([]);
});
