import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { runNode } from '../../../../helpers';
import { expectReceived, useSandbox } from '../../../../helpers/sandbox';
import { listAll, serviceGet } from '../../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox({ clients: 6 });

const update = (individualId: string, updateFields: INodeParameters) =>
	runNode({
		credentials: credentials(),
		parameters: { resource: 'individual', operation: 'update', individualId, updateFields },
	});

async function individualId(): Promise<string> {
	const [first] = (await serviceGet<{ data: Array<{ id: string }> }>(sandbox(), '/individuals'))
		.data;
	sandbox().clearRequests();
	return first.id;
}

const residentialAddress = {
	line1: '7 Rope Walk',
	city: 'Bristol',
	postcode: 'BS1 5AB',
	country: 'United Kingdom',
};

describe('Individual > Update', () => {
	it('sends every field given, the date of birth as day, month and year', async () => {
		const id = await individualId();
		const fields = {
			firstName: 'Mary',
			middleName: 'Ann',
			lastName: 'Anning',
			email: 'mary@lyme.example',
			residentialAddress,
			birth: '1799-05-21',
		};

		const run = await update(id, fields);

		expect(run.error).toBeUndefined();
		expectReceived(sandbox().requests()[0], {
			method: 'PATCH',
			path: `/individuals/${id}`,
			bearer: sandbox().apiKey,
			body: { ...fields, birth: { day: 21, month: 5, year: 1799 } },
		});
		expect(run.json).toEqual([
			(await serviceGet<{ data: IDataObject }>(sandbox(), `/individuals/${id}`)).data,
		]);
		expect(run.json[0]).toMatchObject({ ...fields, birth: { day: 21, month: 5, year: 1799 } });
	});

	it('sends only the field given', async () => {
		const id = await individualId();

		const run = await update(id, { email: 'only.this@example.com' });

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()[0].body).toEqual({ email: 'only.this@example.com' });
	});

	it('clears middle name, email, address and date of birth with null', async () => {
		const id = await individualId();
		await update(id, {
			middleName: 'X',
			email: 'x@example.com',
			residentialAddress,
			birth: '1980-01-01',
		});
		sandbox().clearRequests();

		const run = await update(id, {
			clearFields: ['middleName', 'email', 'residentialAddress', 'birth'],
		});

		expect(run.error).toBeUndefined();
		expect(sandbox().requests()[0].body).toEqual({
			middleName: null,
			email: null,
			residentialAddress: null,
			birth: null,
		});
		for (const field of ['middleName', 'email', 'residentialAddress', 'birth'])
			expect(run.json[0]).not.toHaveProperty(field);
	});

	it.each([
		['a malformed email', { email: 'mary.at.lyme' }, "'Email' is not a valid email address"],
		[
			'a partial date of birth (year and month)',
			{ birth: '1799-05' },
			"'Date of Birth' is incomplete",
		],
		['a partial date of birth (year only)', { birth: '1799' }, "'Date of Birth' is incomplete"],
		[
			'a date of birth that is not a date',
			{ birth: '21/05/1799' },
			"'Date of Birth' is not a date",
		],
		[
			'a date of birth that does not exist',
			{ birth: '1799-02-30' },
			"'Date of Birth' is not a real date",
		],
		[
			'an email both set and cleared',
			{ email: 'a@b.example', clearFields: ['email'] },
			"'Email' is both set and cleared",
		],
	])('refuses %s before sending anything', async (_case, updateFields, message) => {
		const id = await individualId();

		const run = await update(id, updateFields);

		expect(run.error?.message).toBe(`${message} [item 0]`);
		expect(sandbox().requests()).toEqual([]);
	});
});

describe('Individual > Update, version 2: the individual picked', () => {
	it("updates the individual whose web URL is pasted, and refuses a client's URL", async () => {
		const [individual] = await listAll(sandbox(), '/individuals');
		const { web } = individual.links as { web: string };
		sandbox().clearRequests();
		const updatePicked = (value: string) =>
			runNode({
				credentials: credentials(),
				typeVersion: 2,
				parameters: {
					resource: 'individual',
					operation: 'update',
					individualId: { __rl: true, mode: 'url', value },
					updateFields: { middleName: 'Ann' },
				},
			});

		const updated = await updatePicked(web);
		const refused = await updatePicked('={{ "https://app.example.com/clients/" + "abc" }}');

		expect(updated.error).toBeUndefined();
		expect(refused.error?.message).toBe(
			`'Individual' "https://app.example.com/clients/abc" is not the URL of an individual [item 0]`,
		);
		expect(sandbox().requests()).toHaveLength(1); // the update's, none for the client's URL
		expectReceived(sandbox().requests()[0], {
			method: 'PATCH',
			path: `/individuals/${String(individual.id)}`,
			bearer: sandbox().apiKey,
			body: { middleName: 'Ann' },
		});
		expect(updated.json).toEqual([expect.objectContaining({ id: individual.id })]);
		const stored = await serviceGet<{ data: IDataObject }>(
			sandbox(),
			`/individuals/${String(individual.id)}`,
		);
		expect(stored.data.middleName).toBe('Ann');
	});
});
