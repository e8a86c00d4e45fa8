/**
 * Deterministic demo data. The same `seed` and `clients` give the same records on every start
 * (ids, names, addresses, states, risk levels, staff, services); dates and timestamps are fixed
 * offsets from the start day (midnight UTC of the service clock's date at start), so on the
 * same day they are identical too. Every seeded timestamp lies before the start day, so
 * anything that changes after start is newer than all seed data.
 */
import { createHash } from 'node:crypto';

import type {
	Address,
	AmlDetermination,
	AmlStatus,
	Birth,
	ClientState,
	Firm,
	FirmData,
	NewClient,
	NewEntity,
	OrganisationType,
	PersonFields,
	RiskLevel,
	Store,
} from './store';
import { isoTime } from './store';
import {
	ADDRESS_PREFIXES,
	CHARITY_CAUSES,
	COMPANY_TRADES,
	COMPANY_WORDS,
	EMAIL_DOMAINS,
	FIRST_NAMES,
	LAST_NAMES,
	MIDDLE_NAMES,
	OVERSEAS_COMPANIES,
	POSTCODE_LETTERS,
	SOLE_TRADES,
	STREETS,
	TOWNS,
} from './seedWords';

const DAY_MS = 24 * 60 * 60 * 1000;
const YEAR_MS = 365 * DAY_MS;

/** sfc32: a small, fast generator with 128 bits of state, seeded from a SHA-256 of the seed. */
export class Random {
	private a: number;
	private b: number;
	private c: number;
	private d: number;

	constructor(seed: string) {
		const hash = createHash('sha256').update(seed).digest();
		[this.a, this.b, this.c, this.d] = [0, 4, 8, 12].map((offset) => hash.readUInt32LE(offset));
	}

	uint32(): number {
		const t = (((this.a + this.b) | 0) + this.d) | 0;
		this.d = (this.d + 1) | 0;
		this.a = this.b ^ (this.b >>> 9);
		this.b = (this.c + (this.c << 3)) | 0;
		this.c = (this.c << 21) | (this.c >>> 11);
		this.c = (this.c + t) | 0;
		return t >>> 0;
	}

	/** A number in [0, 1). */
	float(): number {
		return this.uint32() / 4294967296;
	}

	/** An integer in [0, max). */
	int(max: number): number {
		return Math.floor(this.float() * max);
	}

	pick<T>(items: readonly T[]): T {
		return items[this.int(items.length)];
	}

	chance(probability: number): boolean {
		return this.float() < probability;
	}

	/** Picks a key of a weight table with probability proportional to its weight. */
	weighted<K extends string>(table: WeightTable<K>): K {
		const roll = this.float() * table.total;
		const index = table.cumulative.findIndex((bound) => roll < bound);
		return table.keys[index < 0 ? table.keys.length - 1 : index];
	}

	/** A version 4 UUID drawn from this generator. */
	uuid(): string {
		for (let word = 0; word < 4; word++) UUID_BYTES.writeUInt32BE(this.uint32(), word * 4);
		UUID_BYTES[6] = 0x40 | (UUID_BYTES[6] & 0x0f);
		UUID_BYTES[8] = 0x80 | (UUID_BYTES[8] & 0x3f);
		UUID_HEX_OFFSETS.forEach((offset, index) => {
			UUID_TEXT[offset] = HEX_DIGITS[UUID_BYTES[index] >> 4];
			UUID_TEXT[offset + 1] = HEX_DIGITS[UUID_BYTES[index] & 15];
		});
		return UUID_TEXT.toString('latin1');
	}
}

/**
 * Seeding formats hundreds of thousands of UUIDs: writing their digits into a reused buffer
 * makes one flat string each, where joining pieces would allocate many.
 */
const HEX_DIGITS = Buffer.from('0123456789abcdef');
const UUID_BYTES = Buffer.alloc(16);
const UUID_TEXT = Buffer.from('00000000-0000-0000-0000-000000000000');
/** Where each byte's two hex digits go in the text. */
const UUID_HEX_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** Weights prepared once, so drawing from them allocates nothing. */
export interface WeightTable<K extends string> {
	keys: K[];
	cumulative: number[];
	total: number;
}

export function weights<K extends string>(table: Record<K, number>): WeightTable<K> {
	const keys = Object.keys(table) as K[];
	let total = 0;
	const cumulative = keys.map((key) => (total += table[key]));
	return { keys, cumulative, total };
}

type StaffSeed = [firstName: string, lastName: string, roles: string];

interface FirmSeed {
	name: string;
	/** Prefix of seeded reference numbers, e.g. HF-000042. */
	referencePrefix: string;
	/** Roles: P partner, M manager, R reviewer; the MLRO is marked L. */
	staff: StaffSeed[];
	businessUnits: [name: string, type: string][];
	services: string[];
}

export const MAIN_FIRM: FirmSeed = {
	name: 'Harwood & Finch LLP',
	referencePrefix: 'HF',
	staff: [
		['Margaret', 'Osei', 'PRL'],
		['Eleanor', 'Harwood', 'PR'],
		['James', 'Finch', 'PR'],
		['Priya', 'Shah', 'PMR'],
		['Tom', 'Gallagher', 'M'],
		['Aisha', 'Rahman', 'MR'],
		['Daniel', 'Price', 'M'],
		['Hannah', 'Lewis', 'R'],
		['Sophie', 'Turner', ''],
		['Ben', 'Clarke', ''],
	],
	businessUnits: [
		['Audit & Assurance', 'DEPARTMENT'],
		['Tax', 'DEPARTMENT'],
		['Private Client', 'DEPARTMENT'],
		['London', 'OFFICE'],
		['Manchester', 'OFFICE'],
	],
	services: [
		'Statutory audit',
		'Annual accounts',
		'Corporation tax return',
		'Self Assessment tax return',
		'VAT returns',
		'Payroll',
		'Bookkeeping',
		'Company secretarial',
		'Business advisory',
		'Probate and estates',
	],
};

export const OTHER_FIRM: FirmSeed = {
	name: 'Pemberton Rowe Accountants',
	referencePrefix: 'PR',
	staff: [
		['Richard', 'Pemberton', 'PRL'],
		['Claire', 'Rowe', 'PMR'],
		['Owen', 'Hughes', 'M'],
	],
	businessUnits: [['Bath', 'OFFICE']],
	services: ['Annual accounts', 'Self Assessment tax return', 'Payroll'],
};

/** Clients seeded in the other firm (the small one for isolation tests). */
export const OTHER_FIRM_CLIENTS = 5;

export interface SeedOptions {
	clients: number;
	seed: string | number;
	/** The service's time at start: seeded dates are offsets from its day. */
	startMs: number;
}

/** The firm a demo user of the OAuth2 flow acts for, and who that user is. */
export interface SeededFirms {
	main: FirmData;
	other: FirmData;
	/** The main firm's MLRO: the user the authorization server approves. */
	demoUser: { id: string; name: string; email: string };
}

export function seedStore(store: Store, options: SeedOptions): SeededFirms {
	const startDayMs = Math.floor(options.startMs / DAY_MS) * DAY_MS;
	const main = seedFirm(
		store,
		MAIN_FIRM,
		options.clients,
		new Random(`${options.seed}:main`),
		startDayMs,
	);
	const other = seedFirm(
		store,
		OTHER_FIRM,
		OTHER_FIRM_CLIENTS,
		new Random(`${options.seed}:other`),
		startDayMs,
	);
	const mlro = main.firm.staff.find((member) => member.id === main.firm.mlroStaffId)!;
	return {
		main,
		other,
		demoUser: {
			id: mlro.id,
			name: `${mlro.firstName} ${mlro.lastName}`,
			email: `${mlro.firstName}.${mlro.lastName}@harwood-finch.example`.toLowerCase(),
		},
	};
}

function seedFirm(
	store: Store,
	seed: FirmSeed,
	clients: number,
	random: Random,
	startDayMs: number,
): FirmData {
	const firmCreatedAt = isoTime(startDayMs - 6 * YEAR_MS);
	const staff = seed.staff.map(([firstName, lastName, roles]) => ({
		id: random.uuid(),
		firstName,
		lastName,
		isPartner: roles.includes('P'),
		isManager: roles.includes('M'),
		isReviewer: roles.includes('R'),
	}));
	const firm: Firm = {
		id: random.uuid(),
		name: seed.name,
		services: seed.services.map((name) => ({ id: random.uuid(), name })),
		businessUnits: seed.businessUnits.map(([name, type]) => ({ id: random.uuid(), name, type })),
		staff,
		mlroStaffId: staff[seed.staff.findIndex(([, , roles]) => roles.includes('L'))]?.id ?? null,
		createdAt: firmCreatedAt,
		updatedAt: isoTime(startDayMs - 30 * DAY_MS),
	};
	const data = store.addFirm(firm);
	const generator = new ClientGenerator(random, data, seed.referencePrefix, clients, startDayMs);
	for (let index = 0; index < clients; index++) generator.add(store, index);
	data.reindex();
	return data;
}

type EntityKind =
	| 'individual'
	| 'sole_trader'
	| 'registry_company'
	| 'NON_PROFIT'
	| 'TRUST'
	| 'OTHER'
	| 'COMPANY';
type BirthKind = 'full' | 'year' | 'none';

interface Profile {
	entity: EntityKind;
	state: ClientState;
	aml: AmlStatus;
	risk?: RiskLevel;
	birth: BirthKind;
}

/**
 * The first clients of every firm cover each category (and both kinds of organisation), state,
 * AML status, risk level and kind of birth date, so even a firm of ten clients shows them all.
 */
const COVERAGE: Profile[] = [
	{ entity: 'individual', state: 'EXISTING', aml: 'COMPLETE', risk: 'LOW', birth: 'full' },
	{ entity: 'registry_company', state: 'EXISTING', aml: 'COMPLETE', risk: 'MEDIUM', birth: 'none' },
	{ entity: 'sole_trader', state: 'PROSPECT', aml: 'NOT_STARTED', birth: 'year' },
	{ entity: 'NON_PROFIT', state: 'EXISTING', aml: 'IN_PROGRESS', risk: 'PENDING', birth: 'none' },
	{ entity: 'individual', state: 'ARCHIVED', aml: 'COMPLETE', risk: 'HIGH', birth: 'year' },
	{ entity: 'registry_company', state: 'DISCARDED', aml: 'NOT_STARTED', birth: 'none' },
	{ entity: 'individual', state: 'PROSPECT', aml: 'IN_PROGRESS', birth: 'none' },
	{ entity: 'sole_trader', state: 'EXISTING', aml: 'COMPLETE', risk: 'NORMAL', birth: 'full' },
	{ entity: 'TRUST', state: 'EXISTING', aml: 'COMPLETE', risk: 'LOW', birth: 'none' },
	{ entity: 'OTHER', state: 'PROSPECT', aml: 'NOT_STARTED', birth: 'none' },
	{ entity: 'COMPANY', state: 'EXISTING', aml: 'IN_PROGRESS', birth: 'none' },
];

const CATEGORY_WEIGHTS = weights({ individual: 45, organisation: 40, sole_trader: 15 });
const ORGANISATION_WEIGHTS = weights({
	registry_company: 65,
	NON_PROFIT: 12,
	TRUST: 9,
	OTHER: 7,
	COMPANY: 7,
});
const STATE_WEIGHTS = weights<ClientState>({
	EXISTING: 60,
	PROSPECT: 20,
	ARCHIVED: 12,
	DISCARDED: 8,
});
const AML_BY_STATE: Record<ClientState, WeightTable<AmlStatus>> = {
	PROSPECT: weights({ NOT_STARTED: 6, IN_PROGRESS: 4, COMPLETE: 0 }),
	EXISTING: weights({ NOT_STARTED: 1, IN_PROGRESS: 1.5, COMPLETE: 7.5 }),
	ARCHIVED: weights({ NOT_STARTED: 2, IN_PROGRESS: 0, COMPLETE: 8 }),
	DISCARDED: weights({ NOT_STARTED: 7, IN_PROGRESS: 3, COMPLETE: 0 }),
};
const RISK_WEIGHTS = weights<RiskLevel>({ PENDING: 0, LOW: 35, NORMAL: 35, MEDIUM: 20, HIGH: 10 });
const BIRTH_WEIGHTS = weights<BirthKind>({ full: 70, year: 25, none: 5 });
const COMPANY_SUBTYPE_WEIGHTS = weights({ ltd: 85, llp: 10, plc: 5 });
const COMPANY_NUMBER_PREFIX_WEIGHTS = weights({ '': 85, SC: 10, NI: 5 });

class ClientGenerator {
	private readonly partners: string[];
	private readonly managers: string[];
	private readonly createdSpanMs = 3 * YEAR_MS;

	constructor(
		private readonly random: Random,
		private readonly data: FirmData,
		private readonly referencePrefix: string,
		private readonly count: number,
		private readonly startDayMs: number,
	) {
		this.partners = data.firm.staff.filter((member) => member.isPartner).map((member) => member.id);
		this.managers = data.firm.staff.filter((member) => member.isManager).map((member) => member.id);
	}

	add(store: Store, index: number): void {
		const { random } = this;
		const profile = COVERAGE[index] ?? this.randomProfile();
		// Creation order is time order: spread over the three years before the start day.
		const slotMs = this.createdSpanMs / Math.max(this.count, 1);
		const createdMs = wholeSecond(
			this.startDayMs - this.createdSpanMs + index * slotMs + random.float() * slotMs * 0.5,
		);
		const lastModifiedMs = random.chance(0.5)
			? createdMs
			: wholeSecond(createdMs + random.float() * (this.startDayMs - 1000 - createdMs));
		const lastAmlDetermination = this.determination(profile, createdMs, lastModifiedMs);
		const input: NewClient = {
			state: profile.state,
			entity: this.entity(profile),
			partnerId: random.chance(0.8) ? random.pick(this.partners) : undefined,
			managerId: random.chance(0.7) ? random.pick(this.managers) : undefined,
			businessUnitId: random.chance(0.75)
				? random.pick(this.data.firm.businessUnits).id
				: undefined,
			serviceIds: this.services(),
			referenceNumber: random.chance(0.8)
				? `${this.referencePrefix}-${String(index + 1).padStart(6, '0')}`
				: undefined,
			nextReviewDate: lastAmlDetermination
				? day(this.startDayMs + random.int(365) * DAY_MS)
				: undefined,
		};
		store.insertClient(
			this.data.firm.id,
			input,
			{ createdAtMs: createdMs, lastModifiedAtMs: lastModifiedMs },
			{
				client: random.uuid(),
				entity: random.uuid(),
				individual: input.entity.object === 'sole_trader' ? random.uuid() : undefined,
			},
			{
				amlDeterminationStatus: profile.aml,
				lastAmlDetermination,
				relatedPartiesCount: input.entity.object === 'organisation' ? random.int(5) : undefined,
			},
		);
	}

	private randomProfile(): Profile {
		const { random } = this;
		const category = random.weighted(CATEGORY_WEIGHTS);
		const entity: EntityKind =
			category !== 'organisation' ? category : random.weighted(ORGANISATION_WEIGHTS);
		const state = random.weighted(STATE_WEIGHTS);
		const aml = random.weighted(AML_BY_STATE[state]);
		const risk: RiskLevel | undefined =
			aml === 'COMPLETE'
				? random.weighted(RISK_WEIGHTS)
				: aml === 'IN_PROGRESS' && random.chance(0.5)
					? 'PENDING'
					: undefined;
		const birth = random.weighted(BIRTH_WEIGHTS);
		return { entity, state, aml, risk, birth };
	}

	private determination(
		profile: Profile,
		createdMs: number,
		lastModifiedMs: number,
	): AmlDetermination | undefined {
		if (!profile.risk) return undefined;
		return {
			riskLevel: profile.risk,
			completedAtMs: wholeSecond(createdMs + this.random.float() * (lastModifiedMs - createdMs)),
		};
	}

	private services(): string[] {
		const chosen = new Set<string>();
		for (let count = this.random.int(4); count > 0; count--)
			chosen.add(this.random.pick(this.data.firm.services).id);
		return [...chosen];
	}

	private entity(profile: Profile): NewEntity {
		const { random } = this;
		switch (profile.entity) {
			case 'individual':
				return { object: 'individual', ...this.person(profile.birth) };
			case 'sole_trader': {
				const individual = this.person(profile.birth);
				const tradingName = random.chance(0.8)
					? random.chance(0.5)
						? `${individual.lastName} ${random.pick(SOLE_TRADES)}`
						: `${individual.firstName}'s ${random.pick(SOLE_TRADES)}`
					: undefined;
				return { object: 'sole_trader', tradingName, individual };
			}
			case 'registry_company': {
				const subType = random.weighted(COMPANY_SUBTYPE_WEIGHTS);
				const ending = { ltd: random.pick(['Ltd', 'Limited']), llp: 'LLP', plc: 'plc' }[subType];
				const prefix = random.weighted(COMPANY_NUMBER_PREFIX_WEIGHTS);
				return this.organisation(
					'COMPANY',
					`${random.pick(COMPANY_WORDS)} ${random.pick(COMPANY_TRADES)} ${ending}`,
					{
						companyNumber:
							prefix +
							String(random.int(10 ** (8 - prefix.length))).padStart(8 - prefix.length, '0'),
						organisationSubType: subType,
					},
				);
			}
			case 'NON_PROFIT':
				return this.organisation(
					'NON_PROFIT',
					`Friends of ${random.pick(TOWNS).city} ${random.pick(CHARITY_CAUSES)}`,
					{
						organisationSubType: 'charity',
						identifyingNumber: String(1_000_000 + random.int(200_000)),
					},
				);
			case 'TRUST':
				return this.organisation('TRUST', `The ${random.pick(LAST_NAMES)} Family Trust`, {
					organisationSubType: random.pick([
						'discretionary trust',
						'bare trust',
						'interest in possession trust',
					]),
					identifyingNumber: String(1_000_000_000 + random.int(999_999_999)),
				});
			case 'OTHER':
				return this.organisation(
					'OTHER',
					`${random.pick(LAST_NAMES)} & ${random.pick(LAST_NAMES)}`,
					{
						organisationSubType: 'general partnership',
					},
				);
			case 'COMPANY': {
				const overseas = random.pick(OVERSEAS_COMPANIES);
				return this.organisation('COMPANY', overseas.name, {
					organisationSubType: 'overseas company',
					identifyingNumber: overseas.identifyingNumber,
				});
			}
		}
	}

	private organisation(
		organisationType: OrganisationType,
		name: string,
		fields: { companyNumber?: string; identifyingNumber?: string; organisationSubType: string },
	): NewEntity {
		const registeredAddress = this.address();
		return {
			object: 'organisation',
			name,
			organisationType,
			...fields,
			registeredAddress,
			tradingAddress: this.random.chance(0.5) ? this.address() : undefined,
		};
	}

	private person(birthKind: BirthKind): PersonFields {
		const { random } = this;
		const firstName = random.pick(FIRST_NAMES);
		const lastName = random.pick(LAST_NAMES);
		const emailName = `${firstName}.${lastName}`.toLowerCase().replace(/[^a-z.]/g, '');
		return {
			firstName,
			middleName: random.chance(0.2) ? random.pick(MIDDLE_NAMES) : undefined,
			lastName,
			email: random.chance(0.7)
				? `${emailName}${random.chance(0.3) ? random.int(100) : ''}@${random.pick(EMAIL_DOMAINS)}`
				: undefined,
			residentialAddress: random.chance(0.9) ? this.address() : undefined,
			birth: this.birth(birthKind),
		};
	}

	private birth(kind: BirthKind): Birth | undefined {
		if (kind === 'none') return undefined;
		const year = 1940 + this.random.int(66);
		if (kind === 'year') return { year };
		const date = new Date(Date.UTC(year, 0, 1) + this.random.int(365) * DAY_MS);
		return { day: date.getUTCDate(), month: date.getUTCMonth() + 1, year };
	}

	private address(): Address {
		const { random } = this;
		const town = random.pick(TOWNS);
		const inward = `${1 + random.int(9)}${random.pick(POSTCODE_LETTERS)}${random.pick(POSTCODE_LETTERS)}`;
		const street = `${1 + random.int(180)} ${random.pick(STREETS)}`;
		const prefix = random.chance(0.25) ? random.pick(ADDRESS_PREFIXES) : undefined;
		return {
			line1: prefix ?? street,
			...(prefix ? { line2: street } : {}),
			city: town.city,
			postcode: `${random.pick(town.districts)} ${inward}`,
			county: town.county,
			country: 'United Kingdom',
		};
	}
}

const wholeSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

const dayStrings = new Map<number, string>();

/** `YYYY-MM-DD` of an instant (UTC), cached per day: seeding writes one per determination. */
function day(ms: number): string {
	const dayNumber = Math.floor(ms / DAY_MS);
	let text = dayStrings.get(dayNumber);
	if (text === undefined) {
		text = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
		dayStrings.set(dayNumber, text);
	}
	return text;
}
