/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Sandbox } from '../src';
import { COMPANY_REGISTRY, startSandbox } from '../src';
import { apiClient } from './helpers';

describe('the fake UK company registry behind import_uk_company', () => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(() => sandbox.close());

	it.each(COMPANY_REGISTRY.map((company) => [company.companyNumber, company] as const))(
		'imports company %s with its registered name, type and address',
		async (companyNumber, company) => {
			const reply = await apiClient(sandbox).post('/clients', {
				status: 'PROSPECT',
				entity: { object: 'import_uk_company', companyNumber: ` ${companyNumber.toLowerCase()} ` },
			});
			expect(reply.status).toBe(201);
			expect(reply.body.data.name).toBe(company.name);
			expect(reply.body.data.entity).toMatchObject({
				companyNumber,
				name: company.name,
				organisationType: 'COMPANY',
				organisationSubType: company.subType,
				registeredAddress: company.registeredAddress,
			});
		},
	);

	it('is documented: the README lists every company number', () => {
		const readme = readFileSync(join(__dirname, '../README.md'), 'utf8');
		for (const { companyNumber, name } of COMPANY_REGISTRY) {
			expect(readme).toContain(companyNumber);
			expect(readme).toContain(name);
		}
	});
});
