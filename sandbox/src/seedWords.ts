/** Word lists the seed draws realistic UK names, addresses and businesses from. */

export const FIRST_NAMES = [
	'Oliver', 'Amelia', 'George', 'Isla', 'Harry', 'Ava', 'Jack', 'Mia', 'Noah', 'Grace',
	'Thomas', 'Sophie', 'William', 'Emily', 'James', 'Charlotte', 'Arthur', 'Lily', 'Henry', 'Freya',
	'Mohammed', 'Aisha', 'Arjun', 'Priya', 'Kwame', 'Ngozi', 'Liam', 'Siobhan', 'Rhys', 'Ffion',
	'Callum', 'Eilidh', 'Daniel', 'Hannah', 'Samuel', 'Chloe', 'Joseph', 'Ruby', 'David', 'Margaret',
];

export const LAST_NAMES = [
	'Smith', 'Jones', 'Taylor', 'Brown', 'Williams', 'Wilson', 'Johnson', 'Davies', 'Patel', 'Robinson',
	'Wright', 'Thompson', 'Evans', 'Walker', 'White', 'Roberts', 'Green', 'Hall', 'Wood', 'Jackson',
	'Clarke', 'Khan', 'Hughes', 'Edwards', 'Turner', 'Lewis', 'Harris', 'Martin', 'Cooper', 'Hill',
	'Ward', 'Morris', 'Moore', 'Clark', 'Lee', 'King', 'Baker', 'Harrison', 'Morgan', 'Allen',
	'Campbell', 'MacDonald', 'Murphy', "O'Neill", 'Okafor', 'Mensah', 'Singh', 'Begum', 'Nowak', 'Kowalski',
];

export const MIDDLE_NAMES = ['Anne', 'James', 'Louise', 'John', 'Marie', 'Edward', 'Rose', 'Alexander', 'Jane', 'Michael'];

export const EMAIL_DOMAINS = ['example.com', 'example.co.uk', 'example.org', 'mail.example', 'post.example'];

export const STREETS = [
	'High Street', 'Station Road', 'Church Lane', 'Victoria Road', 'Mill Lane', 'Park Avenue', 'Queens Road',
	'Manor Close', 'Kings Road', 'The Green', 'Windsor Drive', 'Grange Road', 'Orchard Way', 'New Street',
	'Albert Road', 'Springfield Road', 'Chapel Street', 'Meadow View', 'Castle Street', 'Riverside Walk',
];

export const ADDRESS_PREFIXES = ['Flat 1', 'Flat 2', 'Flat 3', 'Flat 4B', 'Suite 2', 'Unit 5', 'Rose Cottage', 'The Old Rectory'];

/** Towns with their county and a few postcode districts (outward codes) really used there. */
export const TOWNS: { city: string; county: string; districts: string[] }[] = [
	{ city: 'London', county: 'Greater London', districts: ['SW1A', 'EC1V', 'N1', 'SE1', 'W1T', 'E14'] },
	{ city: 'Manchester', county: 'Greater Manchester', districts: ['M1', 'M4', 'M20'] },
	{ city: 'Birmingham', county: 'West Midlands', districts: ['B1', 'B15', 'B29'] },
	{ city: 'Leeds', county: 'West Yorkshire', districts: ['LS1', 'LS6', 'LS17'] },
	{ city: 'Bristol', county: 'City of Bristol', districts: ['BS1', 'BS8', 'BS16'] },
	{ city: 'Edinburgh', county: 'City of Edinburgh', districts: ['EH1', 'EH3', 'EH10'] },
	{ city: 'Glasgow', county: 'Glasgow City', districts: ['G1', 'G12', 'G41'] },
	{ city: 'Cardiff', county: 'South Glamorgan', districts: ['CF10', 'CF11', 'CF14'] },
	{ city: 'Belfast', county: 'County Antrim', districts: ['BT1', 'BT7', 'BT9'] },
	{ city: 'Norwich', county: 'Norfolk', districts: ['NR1', 'NR2', 'NR4'] },
	{ city: 'Oxford', county: 'Oxfordshire', districts: ['OX1', 'OX2', 'OX4'] },
	{ city: 'York', county: 'North Yorkshire', districts: ['YO1', 'YO10', 'YO31'] },
	{ city: 'Brighton', county: 'East Sussex', districts: ['BN1', 'BN2', 'BN3'] },
	{ city: 'Nottingham', county: 'Nottinghamshire', districts: ['NG1', 'NG5', 'NG7'] },
	{ city: 'Exeter', county: 'Devon', districts: ['EX1', 'EX2', 'EX4'] },
];

/** The letters UK postcodes use in the inward code's last two places. */
export const POSTCODE_LETTERS = [...'ABDEFGHJLNPQRSTUWXYZ'];

export const COMPANY_WORDS = [
	'Northgate', 'Riverside', 'Oakfield', 'Kingsway', 'Blackthorn', 'Harbour', 'Meadowbrook', 'Summit', 'Willow',
	'Granite', 'Bluebell', 'Ironbridge', 'Silverdale', 'Foxglove', 'Redbrick', 'Highfield', 'Lakeside', 'Ashby',
];

export const COMPANY_TRADES = [
	'Consulting', 'Logistics', 'Engineering', 'Holdings', 'Design', 'Foods', 'Properties', 'Software',
	'Interiors', 'Builders', 'Media', 'Dental Care', 'Recruitment', 'Motors', 'Print', 'Energy',
];

export const SOLE_TRADES = [
	'Plumbing', 'Electrical', 'Joinery', 'Bakery', 'Hair Studio', 'Bookkeeping', 'Photography', 'Gardening',
	'Tutoring', 'Decorating', 'Cleaning Services', 'Bike Repairs',
];

export const CHARITY_CAUSES = ['Library', 'Food Bank', 'Community Sports Club', 'Heritage Society', 'Youth Theatre', 'Wildlife Rescue'];

export const OVERSEAS_COMPANIES: { name: string; identifyingNumber: string }[] = [
	{ name: 'Nordlys Shipping AS', identifyingNumber: 'NO 912 345 678' },
	{ name: 'Boulangerie Lefevre SARL', identifyingNumber: 'FR 532 118 904' },
	{ name: 'Hafen Logistik GmbH', identifyingNumber: 'HRB 104 552' },
	{ name: 'Liffey Analytics Limited', identifyingNumber: 'IE 654 321' },
];
