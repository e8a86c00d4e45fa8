/**
 * A small fake of the UK national company registry, for the `import_uk_company` entity of
 * createClient. The README lists these numbers; any other number answers 400.
 */
import type { Address } from './store';

export interface RegisteredCompany {
	companyNumber: string;
	name: string;
	/** The registry's company type: ltd, plc or llp. */
	subType: string;
	registeredAddress: Address;
}

const uk = (line1: string, city: string, postcode: string, county: string): Address => ({
	line1,
	city,
	postcode,
	county,
	country: 'United Kingdom',
});

export const COMPANY_REGISTRY: readonly RegisteredCompany[] = [
	{
		companyNumber: '12345678',
		name: 'Demo Widgets Ltd',
		subType: 'ltd',
		registeredAddress: uk('1 Example Street', 'London', 'EC1A 1BB', 'Greater London'),
	},
	{
		companyNumber: '09876543',
		name: 'Brightwater Analytics Ltd',
		subType: 'ltd',
		registeredAddress: uk('14 Quayside', 'Newcastle upon Tyne', 'NE1 3DX', 'Tyne and Wear'),
	},
	{
		companyNumber: '04567891',
		name: 'Thornbury Property Holdings Limited',
		subType: 'ltd',
		registeredAddress: uk('22 Queen Square', 'Bristol', 'BS1 4ND', 'City of Bristol'),
	},
	{
		companyNumber: '07654321',
		name: 'Copper Kettle Cafes Ltd',
		subType: 'ltd',
		registeredAddress: uk('3 Stonegate', 'York', 'YO1 8AS', 'North Yorkshire'),
	},
	{
		companyNumber: '11223344',
		name: 'Kestrel Robotics plc',
		subType: 'plc',
		registeredAddress: uk('Unit 7, Science Park', 'Cambridge', 'CB4 0WS', 'Cambridgeshire'),
	},
	{
		companyNumber: 'OC389112',
		name: 'Ashdown Marsh LLP',
		subType: 'llp',
		registeredAddress: uk('40 Bedford Row', 'London', 'WC1R 4LL', 'Greater London'),
	},
	{
		companyNumber: 'SC412873',
		name: 'Glenmorie Distillers Limited',
		subType: 'ltd',
		registeredAddress: uk('8 Melville Street', 'Edinburgh', 'EH3 7NS', 'City of Edinburgh'),
	},
	{
		companyNumber: 'NI065432',
		name: 'Lagan Valley Foods Ltd',
		subType: 'ltd',
		registeredAddress: uk('55 Donegall Pass', 'Belfast', 'BT7 1DR', 'County Antrim'),
	},
];

/** Looks a company up by number, ignoring case and surrounding spaces. */
export function findRegisteredCompany(companyNumber: string): RegisteredCompany | undefined {
	const wanted = companyNumber.trim().toUpperCase();
	return COMPANY_REGISTRY.find((company) => company.companyNumber === wanted);
}
