/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * The example workflows of examples/, as `npm start` publishes them, running against the sandbox:
 * the onboarding form filled in a real browser, the review alerts and the spreadsheet sync
 * fired by the trigger's polls (each a minute apart).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';

import type { N8nRest } from '../helpers/n8n/instance';
import { launchBrowser, newPage, screenshot } from './browser';
import {
	e2e,
	executionsOf,
	sandboxRequests,
	serviceRequest,
	signedIn,
	waitFor,
} from './environment';

const POLLS_WAIT_MS = 150_000; // up to two polls, a minute apart, and n8n's scheduling slack

interface Client {
	id: string;
	name: string;
	nextReviewDate?: string;
	lastModifiedAt: string;
}

let rest: N8nRest;
let browser: Browser;

beforeAll(async () => {
	rest = await signedIn();
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

const exampleId = (file: string) => {
	const example = e2e().demo.examples.find((candidate) => candidate.file === file);
	if (!example) throw new Error(`Example ${file} was not imported`);
	return example.id;
};

/** A date `days` from today, as YYYY-MM-DD. */
const inDays = (days: number) =>
	new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const outputFile = (name: string) => join(e2e().n8nOptions.filesDir, name);

function readIfExists(path: string): string {
	try {
		return readFileSync(path, 'utf8');
	} catch {
		return '';
	}
}

/** Rows of a CSV file with a header row, as objects (quoted fields may hold commas and quotes). */
function parseCsv(csv: string): Array<Record<string, string>> {
	const text = csv.replace(/^\uFEFF/, ''); // n8n writes CSV files with a byte order mark, as Excel likes
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (quoted) {
			if (char === '"' && text[index + 1] === '"') field += text[++index];
			else if (char === '"') quoted = false;
			else field += char;
		} else if (char === '"') quoted = true;
		else if (char === ',') {
			row.push(field);
			field = '';
		} else if (char === '\n') {
			rows.push([...row, field]);
			row = [];
			field = '';
		} else if (char !== '\r') field += char;
	}
	if (field || row.length) rows.push([...row, field]);
	const [header, ...records] = rows;
	return records.map((values) =>
		Object.fromEntries(header.map((name, index) => [name, values[index] ?? ''])),
	);
}

/** The onboarding form's first page filled in and sent: the client's type and next review date. */
async function startOnboarding(clientType: string, nextReviewDate: string): Promise<Page> {
	const page = await newPage(browser);
	await page.goto(`${e2e().n8nUrl}/form/client-onboarding`);
	await page.getByLabel('Client type').selectOption(clientType);
	await page.getByLabel('Next review date').fill(nextReviewDate);
	await page.getByRole('button', { name: 'Next' }).click();
	return page;
}

/** The last page the person sees (its text), once the second page is filled in and sent. */
async function finishOnboarding(
	page: Page,
	fields: Record<string, string>,
	screenshotName: string,
): Promise<string> {
	for (const [label, value] of Object.entries(fields)) await page.getByLabel(label).fill(value);
	await page.getByRole('button', { name: 'Onboard' }).click();
	await page.getByText(/^Client (not )?onboarded$/).waitFor();
	await screenshot(page, screenshotName);
	const shown = await page.locator('body').innerText();
	await page.close();
	return shown;
}

const onboard = async (clientType: string, reviewDate: string, fields: Record<string, string>) =>
	await finishOnboarding(
		await startOnboarding(clientType, reviewDate),
		fields,
		`onboarding-${clientType.toLowerCase().replace(/\W+/g, '-')}`,
	);

/** The requests the service received while `action` ran. */
async function serviceReceived(action: () => Promise<unknown>): Promise<string[]> {
	const before = (await sandboxRequests()).length;
	await action();
	return (await sandboxRequests())
		.slice(before)
		.filter((request) => request.method !== 'GET')
		.map((request) => `${request.method} ${request.path} ${request.status}`);
}

describe('the examples, as published by npm start', () => {
	let individual: Client;
	let company: Client;
	let reviewed: Client;

	test('onboarding: the form creates an individual, asking its name on a second page, and confirms it', async () => {
		const confirmation = await onboard('Individual', inDays(10), {
			'First name': 'Grace',
			'Last name': 'Hopper',
		});
		const id = /client id ([\w-]+)\)/.exec(confirmation)?.[1];
		expect(confirmation).toContain('Grace Hopper is now a prospect client');
		individual = await serviceRequest<Client>('GET', `/clients/${id}`);
		expect(individual).toMatchObject({
			name: 'Grace Hopper',
			state: 'PROSPECT',
			category: 'INDIVIDUAL',
			nextReviewDate: inDays(10),
		});
	});

	test('onboarding: the form imports a UK company by its number', async () => {
		const confirmation = await onboard('UK company', inDays(200), {
			'Company number': '09876543',
		});
		const id = /client id ([\w-]+)\)/.exec(confirmation)?.[1];
		company = await serviceRequest<Client>('GET', `/clients/${id}`);
		expect(company).toMatchObject({ name: 'Brightwater Analytics Ltd', category: 'ORGANISATION' });
		expect(confirmation).toContain('Brightwater Analytics Ltd is now a prospect client');
	});

	test('onboarding: without a last name, which the service requires for an individual, the form says so and sends nothing', async () => {
		const page = await startOnboarding('Individual', inDays(20));
		await page.getByLabel('First name').fill('Ada');

		const received = await serviceReceived(async () => {
			await page.getByRole('button', { name: 'Onboard' }).click();
			await page.getByText('This field is required').filter({ visible: true }).waitFor();
		});

		expect(received).toEqual([]);
		await screenshot(page, 'onboarding-missing-last-name');
		// The person corrects it on the same page, and the client is onboarded.
		const confirmation = await finishOnboarding(
			page,
			{ 'Last name': 'Lovelace' },
			'onboarding-corrected',
		);
		expect(confirmation).toContain('Ada Lovelace is now a prospect client');
	});

	test("onboarding: a company number the service refuses shows the service's reason and what to do, and creates nothing", async () => {
		let shown = '';
		const received = await serviceReceived(async () => {
			shown = await finishOnboarding(
				await startOnboarding('UK company', inDays(30)),
				{ 'Company number': '00000000' },
				'onboarding-refused',
			);
		});

		expect(received).toEqual(['POST /clients 400']);
		expect(shown).toContain('Client not onboarded');
		expect(shown).toContain(
			"The service said: entity.companyNumber '00000000' was not found in the company registry",
		);
		expect(shown).toContain('Correct the value the service names, then try again.');
	});

	test('onboarding: a next review date in the past is refused, saying so, before anything is sent', async () => {
		let shown = '';
		const received = await serviceReceived(async () => {
			const page = await startOnboarding('Individual', inDays(-1));
			await page.getByText('Client not onboarded').waitFor();
			await screenshot(page, 'onboarding-past-review-date');
			shown = await page.locator('body').innerText();
			await page.close();
		});

		expect(received).toEqual([]);
		expect(shown).toContain(`The next review date, ${inDays(-1)}, is before today`);
		expect(shown).toContain('Nothing was created');
	});

	test('review alerts: a client whose review date moves into the next 30 days gets one alert', async () => {
		const [client] = await serviceRequest<Client[]>('GET', '/clients?limit=1');
		reviewed = await serviceRequest<Client>('PATCH', `/clients/${client.id}`, {
			body: { nextReviewDate: inDays(20) },
		});
		const alerts = await waitFor(
			'alerts for the changed client and the onboarded individual',
			async () => {
				const log = readIfExists(outputFile('compliance-review-alerts.log'));
				return log.includes(reviewed.id) && log.includes(individual.id) ? log : undefined;
			},
			{ timeoutMs: POLLS_WAIT_MS, intervalMs: 3000 },
		);
		const lines = alerts.trim().split('\n');
		expect(lines.filter((line) => line.includes(reviewed.id))).toEqual([
			expect.stringContaining(
				`Review due on ${inDays(20)}: ${reviewed.name} (client ${reviewed.id})`,
			),
		]);
		expect(lines.filter((line) => line.includes(individual.id))).toHaveLength(1);
		// The company's review is 200 days away: no alert.
		expect(alerts).not.toContain(company.id);
	});

	test('sync: every changed client has one row in the spreadsheet, updated in place when it changes again', async () => {
		const rowsFor = async (expected: Client[]) =>
			await waitFor(
				'the spreadsheet rows of the changed clients',
				async () => {
					const rows = parseCsv(readIfExists(outputFile('compliance-clients.csv')));
					const upToDate = expected.every((client) =>
						rows.some(
							(row) => row.id === client.id && row.lastModifiedAt === client.lastModifiedAt,
						),
					);
					return upToDate ? rows : undefined;
				},
				{ timeoutMs: POLLS_WAIT_MS, intervalMs: 3000 },
			);
		const first = await rowsFor([individual, company, reviewed]);
		expect(first.find((row) => row.id === company.id)).toMatchObject({
			name: 'Brightwater Analytics Ltd',
			status: 'PROSPECT',
		});

		const changedAgain = await serviceRequest<Client>('PATCH', `/clients/${reviewed.id}`, {
			body: { nextReviewDate: inDays(300) },
		});
		const rows = await rowsFor([changedAgain]);
		expect(rows.filter((row) => row.id === reviewed.id)).toEqual([
			expect.objectContaining({
				nextReviewDate: inDays(300),
				lastModifiedAt: changedAgain.lastModifiedAt,
			}),
		]);
		expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
	});

	test('every execution of every example succeeded', async () => {
		// Onboarding runs finish when the browser has loaded the confirmation page: allow a moment.
		const finished = await waitFor(
			'the onboarding runs to finish',
			async () => {
				const executions = await executionsOf(rest, exampleId('onboarding.json'));
				return executions.every(
					(execution) => execution.status !== 'waiting' && execution.status !== 'running',
				)
					? executions
					: undefined;
			},
			{ timeoutMs: 20_000 },
		);
		expect(finished).toHaveLength(5); // one per form sent, refusals included
		for (const file of ['onboarding.json', 'review-alerts.json', 'sync-spreadsheet.json']) {
			const executions = await executionsOf(rest, exampleId(file));
			expect(executions.length).toBeGreaterThan(0);
			expect(executions.filter((execution) => execution.status !== 'success')).toEqual([]);
		}
	});
});
