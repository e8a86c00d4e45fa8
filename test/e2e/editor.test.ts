/**
 * The package in n8n's editor, in a real browser: what a user sees when they pick the nodes,
 * fill the dropdowns and test the credential. Screenshots go to test-artifacts/e2e/screenshots/.
 */
import type { Firm } from 'compliance-records-sandbox';
import type { Browser, Page } from 'playwright-core';

import { API_KEY_CREDENTIAL, OAUTH2_CREDENTIAL, manualTrigger } from '../helpers/n8n/demo';
import { listAll } from '../helpers/serviceApi';
import { launchBrowser, newPage, screenshot, signInToEditor } from './browser';
import {
	e2e,
	nodeOutput,
	runWorkflow,
	sandboxRequests,
	serviceRequest,
	signedIn,
	waitFor,
} from './environment';

let browser: Browser;
let page: Page;

beforeAll(async () => {
	browser = await launchBrowser();
	page = await newPage(browser);
});

afterAll(async () => {
	await browser?.close();
});

/** The options of the dropdown that is open now. */
async function openOptions(): Promise<string[]> {
	const options = page.getByRole('option').filter({ visible: true });
	await options.first().waitFor();
	return (await options.allInnerTexts()).map((text) => text.split('\n')[0].trim());
}

/** Every icon in the element has loaded (an icon that failed to load has no width). */
async function iconsIn(selector: string): Promise<Array<{ src: string; loaded: boolean }>> {
	return await page.locator(`${selector} img`).evaluateAll((elements) =>
		elements.map((element) => {
			const image = element as unknown as { src: string; complete: boolean; naturalWidth: number };
			return { src: image.src, loaded: image.complete && image.naturalWidth > 0 };
		}),
	);
}

// The steps build on each other, in one browser page, like a user's session.
describe('the editor', () => {
	test('the owner signs in', async () => {
		await signInToEditor(page);
		await page.getByText('Client onboarding form').first().waitFor(); // an example, in the list of workflows
		await screenshot(page, '01-signed-in');
	});

	test('searching the node panel for "Compliance" finds both nodes, with their icons', async () => {
		await page.goto(`${e2e().n8nUrl}/workflow/new`);
		await page.getByTestId('canvas-plus-button').click();
		await page.getByTestId('node-creator-search-bar').fill('Compliance');
		// n8n lists a node and its trigger as one app: "Compliance Records", with triggers and actions.
		const app = page
			.getByTestId('node-creator-item-name')
			.filter({ hasText: /^Compliance Records$/ });
		await app.waitFor();
		await expect(page.getByTestId('node-creator-item-name').allInnerTexts()).resolves.toEqual([
			'Compliance Records',
		]);
		await screenshot(page, '02-node-panel-search');
		await app.click();
		await page.getByText(/^Actions \(\d+\)/).click();
		const panel = page.getByTestId('node-creator');
		for (const item of [
			'Triggers (3)',
			'On client created or modified',
			'On AML determination completed',
			'On review due',
			'Actions (10)',
			'Create client',
			'Get many clients',
			'Update individual',
			'Get many organisations',
			'Get firm',
		]) {
			await expect(panel.getByText(item, { exact: true }).isVisible()).resolves.toBe(true);
		}
		const icons = await iconsIn('[data-test-id=node-creator]');
		expect(icons.length).toBeGreaterThanOrEqual(13); // the app, 3 triggers, 10 actions
		expect(icons.filter((icon) => !icon.loaded)).toEqual([]);
		expect(icons.every((icon) => icon.src.includes('/icons/CUSTOM/'))).toBe(true);
		await screenshot(page, '03-node-panel-actions');
	});

	test("the action node's resources and operations render, with a credential n8n chose for it", async () => {
		await page.getByText('Create client', { exact: true }).click();
		await page.getByTestId('ndv').waitFor();
		// Left as n8n set it: n8n picks one of the node's credentials (in npm start's n8n, one of the
		// demo's two; here, earlier files may have added more), and the next test fills the lists with it.
		const chosen = await page.getByTestId('node-credentials-select').locator('input').inputValue();
		const ours = (
			await (await signedIn()).request<Array<{ name: string; type: string }>>('GET', '/credentials')
		).filter(
			({ type }) => type === 'complianceRecordsApi' || type === 'complianceRecordsOAuth2Api',
		);
		expect(ours.map(({ name }) => name)).toEqual(
			expect.arrayContaining([API_KEY_CREDENTIAL, OAUTH2_CREDENTIAL, chosen]),
		);

		await page.getByTestId('parameter-input-resource').click();
		// n8n adds "Custom API Call" to every declarative node that has credentials.
		await expect(openOptions()).resolves.toEqual([
			'Client',
			'Firm',
			'Individual',
			'Organisation',
			'Custom API Call',
		]);
		await page.keyboard.press('Escape');
		await page.getByTestId('parameter-input-operation').click();
		await expect(openOptions()).resolves.toEqual([
			'Create',
			'Create or Update',
			'Get',
			'Get Many',
			'Update',
			'Custom API Call',
		]);
		await page.keyboard.press('Escape');
		await screenshot(page, '04-create-client');
	});

	test("a new node's Partner and Services lists fill from the sandbox, with no credential change", async () => {
		const firm = await serviceRequest<Firm>('GET', '/firm');
		const addField = async (field: string) => {
			await page.getByTestId('collection-parameter-add').filter({ visible: true }).last().click();
			await page.getByRole('option', { name: field }).click();
		};
		await page.getByTestId('parameter-input-firstName').locator('input').fill('Ada');
		await page.getByTestId('parameter-input-lastName').locator('input').fill('Lovelace');

		await addField('Partner Name or ID');
		await page.getByTestId('parameter-input-partnerId').locator('input').click();
		const partners = firm.staff
			.filter((member) => member.isPartner)
			.map((member) => `${member.firstName} ${member.lastName}`);
		await expect(openOptions()).resolves.toEqual([...partners].sort());
		await screenshot(page, '05-partner-dropdown');
		await page.getByRole('option', { name: partners[0] }).click();

		await addField('Service Names or IDs');
		await page.getByTestId('parameter-input-serviceIds').locator('.el-select__tags').click();
		await expect(openOptions()).resolves.toEqual(
			firm.services.map((service) => service.name).sort(),
		);
		await screenshot(page, '06-services-dropdown');
		await page.getByRole('option', { name: firm.services[0].name }).click();
		await page.getByTestId('tab-params').click(); // closes the dropdown
		await waitFor(
			'the dropdown to close',
			async () =>
				(await page.getByRole('option').filter({ visible: true }).count()) === 0 ? true : undefined,
			{ timeoutMs: 5000, intervalMs: 200 },
		);
		await screenshot(page, '07-client-filled-in');
	});

	test("the API key credential's test button succeeds", async () => {
		await page.getByTestId('node-credentials-select').click();
		await page.getByRole('option').filter({ hasText: API_KEY_CREDENTIAL }).click();
		await page.getByTestId('credential-edit-button').click();
		const modal = page.getByTestId('editCredential-modal');
		await modal.waitFor();
		const tested = page.waitForResponse((response) =>
			response.url().endsWith('/rest/credentials/test'),
		);
		await modal.getByRole('button', { name: 'Retry' }).click();
		const result = (await (await tested).json()) as { data: { status: string } };
		expect(result.data.status).toBe('OK');
		const retry = modal.getByRole('button', { name: 'Retry' });
		await waitFor('the test to end', async () => ((await retry.isEnabled()) ? true : undefined), {
			timeoutMs: 10_000,
			intervalMs: 200,
		});
		await expect(
			modal.getByTestId('credentials-config-container-test-success').innerText(),
		).resolves.toContain('Connection tested successfully');
		await screenshot(page, '08-credential-tested');
	});

	test("the OAuth2 credential connects through the sandbox's authorization server, and its token works", async () => {
		const { demo, sandbox } = e2e();
		// npm start connects it; forget its token, so that the browser connects it again.
		await (
			await signedIn()
		).request('DELETE', `/credentials/${demo.credentials.oAuth2}/oauth-token`);
		const credentials = await page.context().newPage(); // same session
		await credentials.goto(`${e2e().n8nUrl}/home/credentials`);
		await credentials.getByText(OAUTH2_CREDENTIAL, { exact: true }).click();
		const modal = credentials.getByTestId('editCredential-modal');
		// n8n opens the authorization page in a popup; the sandbox signs its demo user in at once
		// and sends the browser back to n8n's callback with the code (PKCE).
		await modal
			.getByRole('button', { name: /connect/i })
			.first()
			.click();
		await modal.getByText('Account connected').waitFor();
		await screenshot(credentials, '09-oauth2-connected');
		await credentials.close();

		const rest = await signedIn();
		const run = await runWorkflow(rest, {
			name: 'E2E: OAuth2',
			nodes: [
				manualTrigger(),
				{
					id: 'firm',
					name: 'Get firm',
					type: 'CUSTOM.complianceRecords',
					typeVersion: 1,
					position: [240, 0],
					parameters: { authentication: 'oAuth2', resource: 'firm', operation: 'get' },
					credentials: {
						complianceRecordsOAuth2Api: { id: demo.credentials.oAuth2, name: OAUTH2_CREDENTIAL },
					},
				},
			],
			connections: { Run: { main: [[{ node: 'Get firm', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		const [firm] = nodeOutput(run, 'Get firm');
		expect(firm).toMatchObject({ object: 'firm', name: expect.any(String) });
		const firmRequest = (await sandboxRequests())
			.filter((request) => request.path === '/firm')
			.pop();
		// An access token (a signed JWT), not the API key.
		expect(firmRequest?.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
		expect(firmRequest?.headers.authorization).not.toContain(sandbox.apiKey);
	});
});

describe('the Client picker of a Get client node (version 2)', () => {
	let picker: Page;
	let clients: Array<{
		id: string;
		name: string;
		referenceNumber?: string;
		links: { web: string; self: string };
	}>;

	beforeAll(async () => {
		picker = await newPage(browser);
		await signInToEditor(picker);
		clients = (await listAll(e2e().sandbox)) as unknown as typeof clients;
	});

	/** A client as the list shows it: its name, and its reference number when it has one. */
	const listed = (client: (typeof clients)[number]) =>
		client.referenceNumber ? `${client.name} (${client.referenceNumber})` : client.name;

	/** The names the open list shows now. */
	const shownNames = async () =>
		(await picker.getByTestId('rlc-item').allInnerTexts()).map((text) => text.trim());

	const untilShown = async (expected: string[]) =>
		await waitFor(
			`the list to show ${expected.length} clients`,
			async () =>
				JSON.stringify(await shownNames()) === JSON.stringify(expected) ? true : undefined,
			{ timeoutMs: 15_000, intervalMs: 250 },
		);

	test('picks a client From list, narrows the list by a search, takes a pasted URL, and runs (docs/client-picker.png)', async () => {
		const { demo, n8nUrl } = e2e();
		const rest = await signedIn();
		const workflow = await rest.request<{ id: string }>('POST', '/workflows', {
			name: 'E2E: Client picker',
			nodes: [
				manualTrigger(),
				{
					id: 'get-client',
					name: 'Get client',
					type: 'CUSTOM.complianceRecords',
					typeVersion: 2,
					position: [240, 0],
					parameters: { resource: 'client', operation: 'get' },
					credentials: {
						complianceRecordsApi: { id: demo.credentials.apiKey, name: API_KEY_CREDENTIAL },
					},
				},
			],
			connections: { Run: { main: [[{ node: 'Get client', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		await picker.goto(`${n8nUrl}/workflow/${workflow.id}`);
		await picker.getByTestId('canvas-node').filter({ hasText: 'Get client' }).dblclick();
		const field = picker.getByTestId('resource-locator-clientId');
		await expect(
			field.getByTestId('rlc-mode-selector').locator('input').inputValue(),
		).resolves.toBe('From list'); // n8n's own words for the mode

		// From List: the firm's clients in the service's order, 200 at first, the rest on scrolling.
		await field.getByTestId('rlc-input').click();
		await untilShown(clients.slice(0, 200).map(listed));
		await picker.getByTestId('rlc-item').last().scrollIntoViewIfNeeded();
		await untilShown(clients.map(listed));

		// A search narrows the list to the clients one of whose name's words begins with it.
		const walkers = clients.filter((client) =>
			client.name
				.toLowerCase()
				.split(/[^a-z]+/)
				.includes('walker'),
		);
		expect(walkers.length).toBeGreaterThan(1);
		await picker.getByTestId('rlc-search').fill('Walker');
		await untilShown(walkers.map(listed));
		await screenshot(picker, 'client-picker');
		const [chosen] = walkers;
		await picker
			.getByTestId('rlc-item')
			.filter({ hasText: listed(chosen) })
			.click();
		await expect(field.getByTestId('rlc-input').inputValue()).resolves.toBe(listed(chosen));

		// By URL: an individual's URL is not a client's; the client's web page URL is.
		const pasted = clients[3];
		await field.getByTestId('rlc-mode-selector').click();
		await picker.getByRole('option', { name: 'By URL' }).click();
		const urlInput = field.getByTestId('rlc-input');
		await urlInput.fill(pasted.links.web.replace('/clients/', '/individuals/'));
		await field.getByTestId('parameter-issues').hover();
		await picker
			.getByText('Not the URL of a client: paste one that ends in /clients/ followed by the ID')
			.first()
			.waitFor();
		await urlInput.fill(pasted.links.web);
		await waitFor(
			'the issue to go',
			async () => ((await field.getByTestId('parameter-issues').count()) === 0 ? true : undefined),
			{
				timeoutMs: 5000,
				intervalMs: 200,
			},
		);
		await screenshot(picker, 'client-picker-url');

		// Run: the node gets the client of the pasted URL.
		const before = (await sandboxRequests()).length;
		await picker.getByTestId('node-execute-button').first().click();
		await picker.getByTestId('run-data-item-count').getByText('1 item').waitFor();
		await picker
			.getByTestId('ndv-run-data-display-mode')
			.last()
			.getByText('JSON', { exact: true })
			.click();
		const json = await waitFor(
			'the output as JSON',
			async () => {
				const text = (await picker.locator('body').innerText()).replace(/\s+/g, ' '); // one line per token
				return text.includes(`"id": "${pasted.id}"`) ? text : undefined;
			},
			{ timeoutMs: 10_000, intervalMs: 250 },
		);
		expect(json).toContain(`"name": "${pasted.name}"`);
		const gets = (await sandboxRequests())
			.slice(before)
			.filter((request) => request.path.startsWith('/clients/'));
		expect(gets.map((request) => `${request.method} ${request.path}`)).toEqual([
			`GET /clients/${pasted.id}`,
		]);
		await screenshot(picker, 'client-picker-run');
	});
});
