/**
 * The AI assistant example (examples/ai-assistant-mcp.json), published by `npm start`, used as an
 * AI assistant uses it: through the official MCP client (@modelcontextprotocol/sdk) over
 * Streamable HTTP, with the bearer token. No language model is needed: the client lists the
 * tools and calls them with the arguments a model would send, and the answers are checked
 * against the sandbox.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Firm } from 'compliance-records-sandbox';
import type { Browser } from 'playwright-core';

import { launchBrowser, newPage, screenshot, signInToEditor } from './browser';
import { listAll } from '../helpers/serviceApi';
import { SIMPLIFIED_KEYS } from '../helpers/simplified';
import { e2e, sandboxControl, sandboxRequests, serviceRequest, signedIn } from './environment';

interface ToolResult {
	isError?: boolean;
	content: Array<{ type: string; text: string }>;
}

interface FlatClient {
	id: string;
	name: string;
	status: string;
	nextReviewDate: string | null;
	partner?: string | null;
	lastModifiedAt: string;
}

interface ListedClient {
	id: string;
	name: string;
	nextReviewDate?: string;
	lastModifiedAt: string;
}

const TOOLS = [
	'Clients_changed_since',
	'Clients_due_for_review',
	'Create_UK_company_client',
	'Create_individual_client',
	'Firm_staff_and_services',
	'Get_client',
	'Update_review_date_or_partner',
];

const mcpUrl = () => {
	const [url] = e2e().demo.mcpUrls;
	if (!url) throw new Error('The MCP example was not published');
	return new URL(url);
};

async function connect(token?: string): Promise<Client> {
	const transport = new StreamableHTTPClientTransport(mcpUrl(), {
		requestInit:
			token === undefined ? undefined : { headers: { Authorization: `Bearer ${token}` } },
	});
	const client = new Client({ name: 'compliance-records-e2e', version: '1.0.0' });
	await client.connect(transport);
	return client;
}

let client: Client;

beforeAll(async () => {
	client = await connect(e2e().mcpToken);
});

afterAll(async () => {
	await client?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
	return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** A tool's answer: n8n sends the node's output items as one JSON array in a text block. */
async function answer<T>(name: string, args: Record<string, unknown>): Promise<T[]> {
	const result = await call(name, args);
	expect(result.isError).toBeFalsy();
	return JSON.parse(result.content[0].text) as T[];
}

/** The error text a tool call came back with. */
async function toolError(name: string, args: Record<string, unknown>): Promise<string> {
	const result = await call(name, args);
	expect(result.isError).toBe(true);
	return result.content[0].text;
}

/** Every client of the firm, as the service lists them. */
async function everyClient(): Promise<ListedClient[]> {
	return (await listAll(e2e().sandbox)) as unknown as ListedClient[];
}

/** Today and a date `days` later, as YYYY-MM-DD in the example's time zone (Europe/London). */
function londonDate(days = 0): string {
	return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(
		new Date(Date.now() + days * 86_400_000),
	);
}

/**
 * The requests the service received while `action` ran, but for reading clients: the published
 * triggers of the other examples poll the client list (and may read a client) at any moment.
 */
async function requestsDuring(action: () => Promise<unknown>): Promise<string[]> {
	const before = (await sandboxRequests()).length;
	await action();
	return (await sandboxRequests())
		.slice(before)
		.filter((request) => !(request.method === 'GET' && request.path.startsWith('/clients')))
		.map((request) => `${request.method} ${request.path}`);
}

const staffName = (member: Firm['staff'][number]) => `${member.firstName} ${member.lastName}`;

describe('the AI assistant example, through a real MCP client', () => {
	test('the MCP URL refuses a client without the bearer token', async () => {
		// n8n answers HTTP 403 "Authorization data is wrong!", with no token as with another one.
		const refused = { code: 403, message: expect.stringContaining('Authorization data is wrong!') };
		await expect(connect()).rejects.toMatchObject(refused);
		await expect(connect('not-the-token')).rejects.toMatchObject(refused);
	});

	test('lists the seven tools with their descriptions and input schemas', async () => {
		const { tools } = await client.listTools();

		expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
		const tool = (name: string) => tools.find((candidate) => candidate.name === name)!;
		const schema = (name: string) =>
			tool(name).inputSchema as {
				properties: Record<string, { type: string; description?: string; default?: unknown }>;
				required?: string[];
			};
		expect(tool('Clients_due_for_review').description).toMatch(
			/^Find the clients whose next AML review date is within/,
		);
		expect(schema('Clients_due_for_review').properties).toEqual({
			withinDays: expect.objectContaining({
				type: 'number',
				description: expect.stringContaining('Days ahead'),
			}),
			includeOverdue: expect.objectContaining({ type: 'boolean', default: false }),
		});
		expect(schema('Clients_due_for_review').required).toEqual(['withinDays']);
		expect(Object.keys(schema('Clients_changed_since').properties).sort()).toEqual([
			'limit',
			'since',
		]);
		expect(schema('Get_client').required).toEqual(['clientId']);
		expect(Object.keys(schema('Create_individual_client').properties).sort()).toEqual([
			'email',
			'firstName',
			'lastName',
			'nextReviewDate',
			'partner',
			'status',
		]);
		expect(schema('Create_individual_client').required?.sort()).toEqual(['firstName', 'lastName']);
		expect(schema('Create_UK_company_client').required).toEqual(['companyNumber']);
		expect(schema('Update_review_date_or_partner').required).toEqual(['clientId']);
		expect(schema('Update_review_date_or_partner').properties.nextReviewDate.description).toContain(
			'YYYY-MM-DD',
		);
		expect(schema('Firm_staff_and_services').properties).toEqual({});
	});

	test("Firm_staff_and_services: the firm's people, units and services by name, in one request", async () => {
		const firm = await serviceRequest<Firm>('GET', '/firm');
		let answered: Array<Record<string, unknown>> = [];

		const requests = await requestsDuring(async () => {
			answered = await answer('Firm_staff_and_services', {});
		});

		expect(answered).toEqual([
			expect.objectContaining({
				name: firm.name,
				mlro: staffName(firm.staff.find((member) => member.id === firm.mlroStaffId)!),
				partners: firm.staff.filter((member) => member.isPartner).map(staffName),
				managers: firm.staff.filter((member) => member.isManager).map(staffName),
				businessUnits: firm.businessUnits.map((unit) => unit.name),
				services: firm.services.map((service) => service.name),
			}),
		]);
		expect(requests).toEqual(['GET /firm']);
	});

	test('Clients_due_for_review: exactly the clients due within N days, flat and small', async () => {
		const due = (await everyClient()).filter(
			(listed) =>
				listed.nextReviewDate &&
				listed.nextReviewDate >= londonDate() &&
				listed.nextReviewDate <= londonDate(60),
		);

		const clients = await answer<FlatClient>('Clients_due_for_review', { withinDays: 60 });

		expect(due.length).toBeGreaterThan(0);
		expect(clients.map((found) => found.id)).toEqual(due.map((listed) => listed.id));
		// Simplify's list item (Simplified output): the client's fields but partner and manager.
		expect(Object.keys(clients[0])).toEqual(SIMPLIFIED_KEYS.clientListItem);
		expect(clients[0]).toMatchObject({
			id: due[0].id,
			name: due[0].name,
			nextReviewDate: due[0].nextReviewDate,
		});
	});

	test('Clients_due_for_review with includeOverdue: the overdue clients too', async () => {
		const [, , , , , late] = await everyClient();
		await serviceRequest('PATCH', `/clients/${late.id}`, {
			body: { nextReviewDate: londonDate(-2) },
		});
		const dueOrOverdue = (await everyClient()).filter(
			(listed) => listed.nextReviewDate && listed.nextReviewDate <= londonDate(7),
		);

		const clients = await answer<FlatClient>('Clients_due_for_review', {
			withinDays: 7,
			includeOverdue: true,
		});

		expect(dueOrOverdue.map((listed) => listed.id)).toContain(late.id);
		expect(clients.map((found) => found.id)).toEqual(dueOrOverdue.map((listed) => listed.id));
	});

	test('Clients_changed_since: the clients modified since a moment, up to the limit', async () => {
		const clients = await everyClient();
		const since = clients.map((listed) => listed.lastModifiedAt).sort()[clients.length - 8];
		const changed = clients.filter((listed) => listed.lastModifiedAt >= since);

		const found = await answer<FlatClient>('Clients_changed_since', { since, limit: 5 });

		expect(found.map((one) => one.id)).toEqual(changed.slice(0, 5).map((listed) => listed.id));
		// Output: Selected Fields, with when each client last changed.
		expect(found.map((one) => one.lastModifiedAt)).toEqual(
			changed.slice(0, 5).map((listed) => listed.lastModifiedAt),
		);
		expect(Object.keys(found[0]).sort()).toEqual(
			[
				'amlDeterminationStatus',
				'category',
				'id',
				'lastModifiedAt',
				'name',
				'nextReviewDate',
				'referenceNumber',
				'state',
			].filter((field) => field in (changed[0] as unknown as Record<string, unknown>)),
		);
	});

	test('Create_individual_client, Get_client, Update_review_date_or_partner: a prospect with its partner by name', async () => {
		let created: FlatClient[] = [];
		const requests = await requestsDuring(async () => {
			created = await answer<FlatClient>('Create_individual_client', {
				firstName: 'Jane',
				lastName: 'Doe',
				nextReviewDate: '2027-01-31',
				partner: 'Priya Shah',
			});
		});

		expect(requests).toEqual(['GET /firm', 'POST /clients']);
		const [jane] = created;
		expect(jane).toMatchObject({
			name: 'Jane Doe',
			status: 'PROSPECT',
			nextReviewDate: '2027-01-31',
			partner: 'Priya Shah',
		});
		const stored = await serviceRequest<{ partner: { name: string }; entity: { email?: string } }>(
			'GET',
			`/clients/${jane.id}`,
		);
		expect(stored).toMatchObject({ partner: { name: 'Priya Shah' } });
		expect(stored.entity.email).toBeUndefined(); // left out by the model: not sent

		expect(await answer<FlatClient>('Get_client', { clientId: jane.id })).toEqual([
			expect.objectContaining({
				id: jane.id,
				partner: 'Priya Shah',
				manager: null,
				nextReviewDate: '2027-01-31',
			}),
		]);

		const [moved] = await answer<FlatClient>('Update_review_date_or_partner', {
			clientId: jane.id,
			nextReviewDate: '2027-03-31',
		});
		expect(moved).toMatchObject({ nextReviewDate: '2027-03-31', partner: 'Priya Shah' });
		const [handedOver] = await answer<FlatClient>('Update_review_date_or_partner', {
			clientId: jane.id,
			partner: 'James Finch',
		});
		expect(handedOver).toMatchObject({ nextReviewDate: '2027-03-31', partner: 'James Finch' });
		expect(await serviceRequest('GET', `/clients/${jane.id}`)).toMatchObject({
			nextReviewDate: '2027-03-31',
			partner: { name: 'James Finch' },
		});
	});

	test('Create_UK_company_client: the registry names the company', async () => {
		const [company] = await answer<FlatClient>('Create_UK_company_client', {
			companyNumber: '07654321',
			status: 'EXISTING',
		});

		expect(company).toMatchObject({
			name: 'Copper Kettle Cafes Ltd',
			status: 'EXISTING',
			partner: null,
		});
		expect(await serviceRequest('GET', `/clients/${company.id}`)).toMatchObject({
			name: 'Copper Kettle Cafes Ltd',
			category: 'ORGANISATION',
		});
	});

	test('the tools are Compliance Records nodes of version 2.1, and Get_client takes the client ID from $fromAI in the Client picker', async () => {
		const example = e2e().demo.examples.find(
			(candidate) => candidate.file === 'ai-assistant-mcp.json',
		)!;
		const rest = await signedIn();
		const published = await rest.request<{
			nodes: Array<{
				name: string;
				type: string;
				typeVersion: number;
				parameters: Record<string, unknown>;
			}>;
		}>('GET', `/workflows/${example.id}`);
		const tools = published.nodes.filter((node) => node.type === 'CUSTOM.complianceRecordsTool');
		expect(tools.map((node) => node.typeVersion)).toEqual(TOOLS.map(() => 2.1));
		expect(tools.find((node) => node.name === 'Get client')?.parameters.clientId).toEqual({
			__rl: true,
			mode: 'id',
			value: expect.stringContaining("$fromAI('clientId'"),
		});
		const [, second] = await everyClient();

		const before = (await sandboxRequests()).length;
		const got = await answer<FlatClient>('Get_client', { clientId: second.id });
		const received = (await sandboxRequests())
			.slice(before)
			.filter((request) => request.path !== '/clients');

		expect(got).toEqual([expect.objectContaining({ id: second.id, name: second.name })]);
		// The published triggers of the other examples may list clients meanwhile; the tool read one client.
		expect(received.map((request) => `${request.method} ${request.path}`)).toEqual([
			`GET /clients/${second.id}`,
		]);
	});

	test('a bad argument is a clear tool error, and the server keeps serving', async () => {
		const unknownClient = await toolError('Get_client', { clientId: 'no-such-client' });
		expect(unknownClient).toContain('Client "no-such-client" was not found');

		let unknownPartner = '';
		const requests = await requestsDuring(async () => {
			const [client] = await everyClient();
			unknownPartner = await toolError('Update_review_date_or_partner', {
				clientId: client.id,
				partner: 'Jon Smith',
			});
		});
		expect(unknownPartner).toContain(
			"'Partner Name or ID' \"Jon Smith\" is not one of the firm's partners",
		);
		expect(unknownPartner).toContain(
			"The firm's partners: Eleanor Harwood, James Finch, Margaret Osei, Priya Shah.",
		);
		expect(requests.filter((request) => request.startsWith('PATCH'))).toEqual([]);

		expect(
			await toolError('Create_individual_client', {
				firstName: 'Ada',
				lastName: 'Byron',
				nextReviewDate: 'next June',
			}),
		).toContain("'Next Review Date' is not a date");
		expect(await toolError('Clients_due_for_review', { withinDays: 'soon' })).toContain(
			'Received tool input did not match expected schema',
		);

		expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
		const [firm] = await answer<{ name: string }>('Firm_staff_and_services', {});
		expect(firm.name).toBe((await serviceRequest<Firm>('GET', '/firm')).name);
	});

	test("a service failure reaches the model as a tool error with the service's message", async () => {
		await sandboxControl('POST', '/faults', { status: 500, path: '/firm', count: 1 });

		const failure = await toolError('Firm_staff_and_services', {});
		const answered = (await sandboxRequests()).findLast(
			(request) => request.path === '/firm' && request.status === 500,
		);
		expect(answered?.errorMessage).toEqual(expect.any(String));
		expect(failure).toContain('The service could not complete the request (HTTP 500)');
		expect(failure).toContain(`The service said: ${answered?.errorMessage}`);
		expect((await answer<{ name: string }>('Firm_staff_and_services', {}))[0].name).toEqual(
			expect.any(String),
		);
	});
});

describe('the AI assistant example in the editor', () => {
	let browser: Browser;

	afterAll(async () => {
		await browser?.close();
	});

	test('shows the MCP Server Trigger with its seven tools (docs/ai-assistant-mcp.png)', async () => {
		browser = await launchBrowser();
		const page = await newPage(browser);
		await signInToEditor(page);
		const example = e2e().demo.examples.find(
			(candidate) => candidate.file === 'ai-assistant-mcp.json',
		)!;
		await page.goto(`${e2e().n8nUrl}/workflow/${example.id}`);
		for (const name of [
			'MCP Server Trigger',
			'Clients due for review',
			'Get client',
			'Firm staff and services',
		]) {
			await page.getByTestId('canvas-node').filter({ hasText: name }).first().waitFor();
		}
		await expect(page.getByTestId('canvas-node').count()).resolves.toBe(TOOLS.length + 1);
		await screenshot(page, 'ai-assistant-mcp');
	});
});
