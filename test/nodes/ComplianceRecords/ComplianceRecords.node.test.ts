/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ComplianceRecords } from '../../../nodes/ComplianceRecords/ComplianceRecords.node';
import { parametersShown } from '../../helpers/parametersShown';

const node = new ComplianceRecords();
const { description } = node;
const nodeDir = join(__dirname, '../../../nodes/ComplianceRecords');

const shown = (values: INodeParameters, typeVersion = 1) =>
	parametersShown(description, values, typeVersion);

const optionValues = (property: INodeProperties | undefined) =>
	(property?.options ?? []).map((option) => ('value' in option ? option.value : undefined));

describe('Compliance Records node description', () => {
	it('has the public names saved workflows depend on', () => {
		expect(description.name).toBe('complianceRecords');
		expect(shown({})).toMatchObject({ authentication: 'apiKey', resource: 'client' });
		const property = (name: string, resource?: string) =>
			description.properties.find(
				(candidate) =>
					candidate.name === name &&
					(!resource || candidate.displayOptions?.show?.resource?.includes(resource)),
			);
		expect(optionValues(property('authentication'))).toEqual(['apiKey', 'oAuth2']);
		expect(optionValues(property('resource'))).toEqual([
			'client',
			'firm',
			'individual',
			'organisation',
		]);
		expect(optionValues(property('operation', 'client'))).toEqual([
			'create',
			'upsert',
			'get',
			'getAll',
			'update',
		]);
		expect(optionValues(property('operation', 'individual'))).toEqual(['get', 'getAll', 'update']);
		expect(optionValues(property('operation', 'organisation'))).toEqual(['getAll']);
		expect(optionValues(property('operation', 'firm'))).toEqual(['get']);
		expect(description.credentials?.map((credential) => credential.name)).toEqual([
			'complianceRecordsApi',
			'complianceRecordsOAuth2Api',
		]);
	});

	it.each([
		['client', 'get', { clientId: '' }],
		['client', 'update', { clientId: '', updateFields: {} }],
		['individual', 'get', { individualId: '' }],
		['individual', 'update', { individualId: '', updateFields: {} }],
		['client', 'getAll', { returnAll: false, limit: 50, filters: {} }],
		['individual', 'getAll', { returnAll: false, limit: 50 }],
		['organisation', 'getAll', { returnAll: false, limit: 50 }],
		['firm', 'get', {}],
	])('%s > %s shows exactly its fields', (resource, operation, fields) => {
		expect(shown({ resource, operation })).toEqual({
			authentication: 'apiKey',
			resource,
			operation,
			...fields,
		});
	});

	it.each([
		['client', 'create'],
		['client', 'get'],
		['client', 'getAll'],
		['client', 'update'],
		['individual', 'get'],
		['individual', 'getAll'],
		['individual', 'update'],
		['organisation', 'getAll'],
		['firm', 'get'],
	])(
		'%s > %s: versions 2 and 2.1 (new nodes) have Simplify, on; version 1 (0.1.0) has none',
		(resource, operation) => {
			expect(description.version).toEqual([1, 2, 2.1]);
			expect(shown({ resource, operation }, 2.1)).toMatchObject({ simplify: true });
			expect(shown({ resource, operation }, 2)).toMatchObject({ simplify: true });
			expect(shown({ resource, operation }, 1)).not.toHaveProperty('simplify');
		},
	);

	it.each([
		['client', 'get', 'clientId'],
		['client', 'update', 'clientId'],
		['individual', 'get', 'individualId'],
		['individual', 'update', 'individualId'],
	])(
		'%s > %s: version 2 (new nodes) picks the record, From List first; 1 keeps the ID as text',
		(resource, operation, name) => {
			expect(shown({ resource, operation }, 2)[name]).toEqual({
				__rl: true,
				mode: 'list',
				value: '',
			});
			expect(shown({ resource, operation }, 1)[name]).toBe('');
			const field = (typeVersion: number) =>
				description.properties.find(
					(property) =>
						property.name === name &&
						NodeHelpers.displayParameter(
							{ resource, operation },
							property,
							{ typeVersion },
							description,
						),
				);
			expect(field(2)).toMatchObject({
				displayName: name === 'clientId' ? 'Client' : 'Individual',
				type: 'resourceLocator',
			});
			expect(field(2)?.modes?.map((mode) => mode.displayName)).toEqual([
				'From List',
				'By URL',
				'By ID',
			]);
			expect(field(1)).toMatchObject({
				displayName: name === 'clientId' ? 'Client ID' : 'Individual ID',
				type: 'string',
			});
		},
	);

	it("client > getAll: version 2.1 (new nodes) filters on 'Review Due', its days only for a window; 1 and 2 keep 'Include Overdue'", () => {
		const getMany = { resource: 'client', operation: 'getAll' };
		/** The filters the editor offers to add, with these filters already added. */
		const offered = (typeVersion: number, filters: INodeParameters = {}) =>
			(
				description.properties.find(
					(property) =>
						property.name === 'filters' &&
						NodeHelpers.displayParameter(getMany, property, { typeVersion }, description),
				)?.options as INodeProperties[]
			)
				.filter((option) =>
					NodeHelpers.displayParameter(filters, option, { typeVersion }, description),
				)
				.map((option) => option.displayName);

		expect(offered(2.1)).toEqual(['Modified Since', 'Review Due']);
		expect(offered(2.1, { reviewDue: 'overdue' })).toEqual(['Modified Since', 'Review Due']);
		for (const reviewDue of ['dueWithin', 'overdueOrDueWithin']) {
			expect(offered(2.1, { reviewDue })).toEqual([
				'Modified Since',
				'Review Due',
				'Review Due Within (Days)',
			]);
		}
		for (const typeVersion of [1, 2]) {
			expect(offered(typeVersion)).toEqual([
				'Include Overdue',
				'Modified Since',
				'Review Due Within (Days)',
			]);
		}
		const overdue = { reviewDue: 'overdue', reviewDueWithinDays: 5 };
		expect(shown({ ...getMany, filters: overdue }, 2.1).filters).toEqual({ reviewDue: 'overdue' });
		const saved = { includeOverdue: true, reviewDueWithinDays: 5 };
		expect(shown({ ...getMany, filters: saved }, 2).filters).toEqual(saved);
	});

	it('Return All hides Limit', () => {
		expect(shown({ resource: 'client', operation: 'getAll', returnAll: true })).not.toHaveProperty(
			'limit',
		);
	});

	it.each([
		['individual', { firstName: '', lastName: '', individualFields: {} }],
		['sole_trader', { firstName: '', lastName: '', soleTraderFields: {} }],
		['import_uk_company', { companyNumber: '', companyFields: {} }],
		['organisation', { organisationName: '', organisationType: 'COMPANY', organisationFields: {} }],
	])('client > create with entity type %s shows only its own fields', (entityType, fields) => {
		expect(shown({ resource: 'client', operation: 'create', entityType })).toEqual({
			authentication: 'apiKey',
			resource: 'client',
			operation: 'create',
			status: 'PROSPECT',
			entityType,
			...fields,
			additionalFields: {},
		});
	});

	it("the optional fields of each entity type are the spec's", () => {
		// Once each: a field whose type changes with the node version (a date) has one entry per version.
		const optionNames = (name: string) => [
			...new Set(
				(
					description.properties.find((property) => property.name === name)
						?.options as INodeProperties[]
				).map((option) => option.name),
			),
		];

		expect(optionNames('individualFields')).toEqual([
			'birth',
			'email',
			'middleName',
			'residentialAddress',
		]);
		expect(optionNames('soleTraderFields').sort()).toEqual([
			'birth',
			'email',
			'middleName',
			'residentialAddress',
			'tradingName',
		]);
		expect(optionNames('companyFields')).toEqual(['tradingAddress']);
		expect(optionNames('organisationFields')).toEqual([
			'identifyingNumber',
			'registeredAddress',
			'subType',
			'tradingAddress',
		]);
		expect(optionNames('additionalFields').sort()).toEqual([
			'businessUnitId',
			'managerId',
			'nextReviewDate',
			'partnerId',
			'referenceNumber',
			'serviceIds',
		]);
	});

	it('can be used as an AI tool, every operation with an action', () => {
		expect(description.usableAsTool).toBe(true);
		const operations = description.properties.filter((property) => property.name === 'operation');
		for (const option of operations.flatMap((property) => property.options ?? [])) {
			expect(option).toHaveProperty('action');
		}
	});

	it('has both icons and a codex with categories and documentation links', () => {
		const icon = description.icon as { light: string; dark: string };
		for (const file of [icon.light, icon.dark]) {
			expect(existsSync(join(nodeDir, file.replace('file:', '')))).toBe(true);
		}
		const codex = JSON.parse(readFileSync(join(nodeDir, 'ComplianceRecords.node.json'), 'utf8'));
		expect(codex.node).toBe('n8n-nodes-compliance-records.complianceRecords');
		expect(Number(codex.nodeVersion)).toBe(Math.max(...[description.version].flat()));
		expect(codex.categories.length).toBeGreaterThan(0);
		expect(codex.resources.primaryDocumentation[0].url).toMatch(/^https:\/\//);
		expect(codex.resources.credentialDocumentation[0].url).toMatch(/^https:\/\//);
	});

	it('has dropdown loaders for every field that names one', () => {
		const named =
			JSON.stringify(description.properties).match(/"loadOptionsMethod":"(\w+)"/g) ?? [];
		const methods = new Set(named.map((match) => match.split('"')[3]));
		expect([...methods].sort()).toEqual(Object.keys(node.methods.loadOptions).sort());
	});

	it('has a list search for every record picker', () => {
		const named = JSON.stringify(description.properties).match(/"searchListMethod":"(\w+)"/g) ?? [];
		const methods = new Set(named.map((match) => match.split('"')[3]));
		expect([...methods].sort()).toEqual(Object.keys(node.methods.listSearch).sort());
		expect(methods.size).toBe(2);
	});
});
