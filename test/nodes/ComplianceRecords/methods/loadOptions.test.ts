/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- the API key is deliberately wrong, not a secret */
import type { Firm } from 'compliance-records-sandbox';
import { connectOAuth2, loadOptions } from '../../../helpers';
import { expectReceived, serviceSaid, useSandbox } from '../../../helpers/sandbox';
import { firmOf } from '../../../helpers/serviceApi';

const { sandbox, credentials } = useSandbox();

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

async function firm(): Promise<Firm> {
	const data = await firmOf(sandbox());
	sandbox().clearRequests();
	return data;
}

const load = (method: string, authentication = 'apiKey', store = credentials()) =>
	loadOptions(method, {
		credentials: store,
		parameters: { authentication, resource: 'client', operation: 'create' },
	});

describe('Dropdowns filled from GET /firm', () => {
	it('Partner: the staff who are partners, by name', async () => {
		const { staff } = await firm();

		const options = await load('getPartners');

		const partners = staff.filter((member) => member.isPartner);
		expect(partners.length).toBeGreaterThan(0);
		expect(partners.length).toBeLessThan(staff.length);
		expect(options).toEqual(
			partners
				.map((member) => ({ name: `${member.firstName} ${member.lastName}`, value: member.id }))
				.sort(byName),
		);
		expect(sandbox().requests()).toHaveLength(1);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/firm',
			bearer: sandbox().apiKey,
		});
	});

	it('Manager: the staff who are managers, by name', async () => {
		const { staff } = await firm();

		const options = await load('getManagers');

		const managers = staff.filter((member) => member.isManager);
		expect(managers.length).toBeGreaterThan(0);
		expect(options).toEqual(
			managers
				.map((member) => ({ name: `${member.firstName} ${member.lastName}`, value: member.id }))
				.sort(byName),
		);
	});

	it('Business Unit: every unit, its type in words as description', async () => {
		const { businessUnits } = await firm();

		const options = await load('getBusinessUnits');

		expect(options).toEqual(
			businessUnits
				.map((unit) => ({
					name: unit.name,
					value: unit.id,
					description: { DEPARTMENT: 'Department', OFFICE: 'Office' }[unit.type],
				}))
				.sort(byName),
		);
	});

	it('Services: every service of the firm', async () => {
		const { services } = await firm();

		const options = await load('getServices');

		expect(options).toEqual(
			services.map((service) => ({ name: service.name, value: service.id })).sort(byName),
		);
	});

	it('with the OAuth2 credential too', async () => {
		const { services } = await firm();
		const store = credentials();
		const { tokenData } = await connectOAuth2(store);

		const options = await load('getServices', 'oAuth2', store);

		expect(options).toHaveLength(services.length);
		expectReceived(sandbox().requests()[0], {
			method: 'GET',
			path: '/firm',
			bearer: String(tokenData.access_token),
		});
	});

	it('a refused credential gives the same clear error as the operations', async () => {
		const store = credentials().set('complianceRecordsApi', {
			baseUrl: sandbox().baseUrl,
			apiKey: 'crs_wrong_key_000000000',
		});

		const refused = await load('getPartners', 'apiKey', store).catch((error: Error) => error);

		expect(refused).toMatchObject({ message: 'The service refused the API key' });
		expect((refused as { description?: string }).description).toContain(serviceSaid(sandbox()));
	});
});
