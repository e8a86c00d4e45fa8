import type { Sandbox } from '../src';
import { startSandbox } from '../src';
import { apiClient, listAll, newIndividualClient } from './helpers';

describe('pagination (spec §4.5)', () => {
	const sandboxes: Sandbox[] = [];
	const firmOf = async (clients: number) => {
		const sandbox = await startSandbox({ clients });
		sandboxes.push(sandbox);
		return { sandbox, api: apiClient(sandbox) };
	};
	afterAll(() => Promise.all(sandboxes.map((sandbox) => sandbox.close())));

	describe.each([
		{ clients: 0, limit: 200, pages: [0] },
		{ clients: 1, limit: 200, pages: [1] },
		{ clients: 199, limit: 200, pages: [199] },
		{ clients: 200, limit: 200, pages: [200, 0] },
		{ clients: 201, limit: 200, pages: [200, 1] },
		{ clients: 199, limit: undefined, pages: [50, 50, 50, 49] },
		{ clients: 200, limit: undefined, pages: [50, 50, 50, 50, 0] },
		{ clients: 3, limit: 1, pages: [1, 1, 1, 0] },
	])('a firm of $clients clients, limit $limit', ({ clients, limit, pages }) => {
		it(`answers pages of ${pages.join(', ')}, a cursor after each full page, meta.total ${clients} on each`, async () => {
			const { api } = await firmOf(clients);
			const seen: string[] = [];
			let cursor: string | undefined;
			for (const [index, size] of pages.entries()) {
				const query = new URLSearchParams();
				if (limit !== undefined) query.set('limit', String(limit));
				if (cursor !== undefined) query.set('cursor', cursor);
				const page = await api.get(`/clients?${query}`);
				expect(page.status).toBe(200);
				expect(page.body.data).toHaveLength(size);
				expect(page.body.meta.total).toBe(clients);
				const full = size === (limit ?? 50);
				expect('next_cursor' in page.body.meta).toBe(full);
				seen.push(...page.body.data.map((client: { id: string }) => client.id));
				cursor = page.body.meta.next_cursor;
				if (index === pages.length - 1) expect(cursor).toBeUndefined();
			}
			expect(new Set(seen).size).toBe(clients);
		});
	});

	it('refuses limit 0, 201 and anything not a whole number, naming limit', async () => {
		const { api } = await firmOf(3);
		for (const limit of ['0', '201', '-1', '1.5', 'ten', '']) {
			const reply = await api.get(`/clients?limit=${limit}`);
			expect(reply.status).toBe(400);
			expect(reply.body.message).toMatch(/limit must be a whole number from 1 to 200/);
		}
		expect((await api.get('/clients?limit=1')).body.data).toHaveLength(1);
		expect((await api.get('/clients?limit=200')).body.data).toHaveLength(3);
	});

	it('pages through the firm in creation order with any page size, each client once', async () => {
		const { api } = await firmOf(201);
		const inOnePage = (await listAll(api, '/clients', 200)).items.map((client) => client.id);
		const bySeven = await listAll(api, '/clients', 7);
		expect(bySeven.items.map((client) => client.id)).toEqual(inOnePage);
		expect(bySeven.pages).toBe(Math.ceil(201 / 7));
		expect(new Set(inOnePage).size).toBe(201);
	});

	it('keeps its order when clients change (it does not follow lastModifiedAt), and adds new clients at the end', async () => {
		const { api } = await firmOf(10);
		const before = (await listAll(api, '/clients', 3)).items.map((client) => client.id);
		expect((await api.patch(`/clients/${before[4]}`, { referenceNumber: 'MOVED-1' })).status).toBe(
			200,
		);
		const created = await api.post('/clients', newIndividualClient());
		const after = (await listAll(api, '/clients', 3)).items.map((client) => client.id);
		expect(after).toEqual([...before, created.body.data.id]);
	});

	describe('cursors', () => {
		it('are standard base64 with +, / and =, and work when URL-encoded', async () => {
			const { api } = await firmOf(4);
			const first = await api.get('/clients?limit=1');
			const cursor: string = first.body.meta.next_cursor;
			expect(cursor).toMatch(/^[A-Za-z0-9+/]+=*$/);
			expect(cursor).toContain('+');
			expect(cursor).toContain('/');
			expect(cursor).toContain('=');
			const viaSearchParams = await api.get(
				`/clients?${new URLSearchParams({ limit: '1', cursor })}`,
			);
			const viaEncodeUri = await api.get(`/clients?limit=1&cursor=${encodeURIComponent(cursor)}`);
			expect(viaSearchParams.status).toBe(200);
			expect(viaEncodeUri.body).toEqual(viaSearchParams.body);
			expect(viaSearchParams.body.data[0].id).not.toBe(first.body.data[0].id);
		});

		it('refuse with 400 a cursor sent without URL-encoding (its + arrives as a space), rather than misread it', async () => {
			const { api } = await firmOf(4);
			const cursor: string = (await api.get('/clients?limit=1')).body.meta.next_cursor;
			const reply = await api.get(`/clients?limit=1&cursor=${cursor}`);
			expect(reply.status).toBe(400);
			expect(reply.body.message).toMatch(/URL-encod/);
		});

		it('are refused when altered, empty, or used on another list, another firm or another sinceModifiedAt', async () => {
			const { sandbox, api } = await firmOf(4);
			const cursor: string = (await api.get('/clients?limit=1')).body.meta.next_cursor;
			const since = '2000-01-01T00:00:00.000Z';
			const sinceCursor: string = (await api.get(`/clients?limit=1&sinceModifiedAt=${since}`)).body
				.meta.next_cursor;
			const other = apiClient(sandbox, sandbox.otherFirm.apiKey);
			const altered = `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
			const attempts = [
				api.get(`/clients?cursor=${encodeURIComponent(altered)}`),
				api.get(`/clients?cursor=${encodeURIComponent('not a cursor')}`),
				api.get('/clients?cursor='),
				api.get(`/individuals?cursor=${encodeURIComponent(cursor)}`),
				other.get(`/clients?cursor=${encodeURIComponent(cursor)}`),
				api.get(`/clients?cursor=${encodeURIComponent(sinceCursor)}`),
				api.get(
					`/clients?sinceModifiedAt=1999-01-01T00:00:00Z&cursor=${encodeURIComponent(sinceCursor)}`,
				),
			];
			for (const reply of await Promise.all(attempts)) {
				expect(reply.status).toBe(400);
				expect(reply.body.message).toMatch(/cursor/);
			}
			const same = await api.get(
				`/clients?sinceModifiedAt=${since}&cursor=${encodeURIComponent(sinceCursor)}`,
			);
			expect(same.status).toBe(200);
		});

		it('stay valid when the page size changes between pages', async () => {
			const { api } = await firmOf(10);
			const all = (await api.get('/clients?limit=10')).body.data.map(
				(client: { id: string }) => client.id,
			);
			const first = await api.get('/clients?limit=3');
			const rest = await api.get(
				`/clients?limit=200&cursor=${encodeURIComponent(first.body.meta.next_cursor)}`,
			);
			expect(rest.body.data.map((client: { id: string }) => client.id)).toEqual(all.slice(3));
		});
	});

	it.each(['/individuals', '/organisations'])(
		'%s pages the same way, meta.total counting the whole list',
		async (path) => {
			const { api } = await firmOf(200);
			const firstPage = await api.get(path);
			expect(firstPage.body.data).toHaveLength(50);
			const { items } = await listAll(api, path, 13);
			expect(firstPage.body.meta.total).toBe(items.length);
			expect(new Set(items.map((item) => item.id)).size).toBe(items.length);
			expect(items.length).toBeGreaterThan(13);
		},
	);

	describe('sinceModifiedAt', () => {
		it('is inclusive, counts only matching clients in meta.total, and pages in creation order', async () => {
			const { sandbox, api } = await firmOf(30);
			const ids = (await listAll(api, '/clients')).items.map((client) => client.id);
			sandbox.setClock({ frozenAt: '2099-01-01T00:00:00.000Z' });
			for (const id of [ids[20], ids[3], ids[11]])
				await api.patch(`/clients/${id}`, { referenceNumber: `R-${id}` });
			sandbox.setClock({ frozenAt: '2099-01-01T00:00:00.001Z' });
			await api.patch(`/clients/${ids[7]}`, { referenceNumber: 'LATER' });

			const atTie = await listAll(api, '/clients?sinceModifiedAt=2099-01-01T00:00:00.000Z', 1);
			expect(atTie.items.map((client) => client.id)).toEqual([ids[3], ids[7], ids[11], ids[20]]);
			const page = await api.get('/clients?sinceModifiedAt=2099-01-01T00:00:00.000Z&limit=2');
			expect(page.body.meta.total).toBe(4);
			const after = await api.get('/clients?sinceModifiedAt=2099-01-01T00:00:00.001Z');
			expect(after.body.data.map((client: { id: string }) => client.id)).toEqual([ids[7]]);
			expect(after.body.meta.total).toBe(1);
			const none = await api.get('/clients?sinceModifiedAt=2099-01-01T00:00:00.002Z');
			expect(none.body).toEqual({ data: [], meta: { total: 0 } });
		});

		it('accepts any offset and fractions finer than milliseconds, when URL-encoded', async () => {
			const { sandbox, api } = await firmOf(5);
			const id = (await api.get('/clients?limit=1')).body.data[0].id;
			sandbox.setClock({ frozenAt: '2099-06-01T12:00:00.000Z' });
			await api.patch(`/clients/${id}`, { referenceNumber: 'OFFSET' });
			for (const since of [
				'2099-06-01T13:00:00+01:00',
				'2099-06-01T12:00:00.000000Z',
				'2099-06-01T07:00:00-05:00',
			]) {
				const reply = await api.get(`/clients?${new URLSearchParams({ sinceModifiedAt: since })}`);
				expect(reply.body.data.map((client: { id: string }) => client.id)).toEqual([id]);
			}
		});

		it('answers 400 for anything but a date-time, including an offset whose + was not URL-encoded', async () => {
			const { api } = await firmOf(2);
			for (const since of [
				'yesterday',
				'2026-01-31',
				'2026-13-01T00:00:00Z',
				'2026-01-31T09:00:00',
				'2026-01-31T09:00:00+01:00',
			]) {
				const reply = await api.get(`/clients?sinceModifiedAt=${since}`);
				expect(reply.status).toBe(400);
				expect(reply.body.message).toMatch(/sinceModifiedAt must be a date-time/);
			}
		});

		it('is optional and nullable: an empty value lists every client', async () => {
			const { api } = await firmOf(3);
			expect((await api.get('/clients?sinceModifiedAt=')).body.meta.total).toBe(3);
		});

		it('finds the few recent changes in a larger firm, and the many when most clients match', async () => {
			const { sandbox, api } = await firmOf(1000);
			const ids = (await listAll(api, '/clients')).items.map((client) => client.id);
			const changed = [ids[999], ids[0], ids[500]];
			for (const id of changed) await api.patch(`/clients/${id}`, { nextReviewDate: '2030-01-01' });
			const since = sandbox.changes()[0].lastModifiedAt;
			const recent = await listAll(api, `/clients?sinceModifiedAt=${since}`, 2);
			expect(recent.items.map((client) => client.id)).toEqual([ids[0], ids[500], ids[999]]);
			const everything = await listAll(api, '/clients?sinceModifiedAt=1970-01-01T00:00:00Z', 200);
			expect(everything.items.map((client) => client.id)).toEqual(ids);
		});
	});
});
