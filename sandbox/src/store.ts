/**
 * The service's data: firms, their clients and entities, in creation order, with the indexes
 * that keep lists fast (positions for cursors, lastModifiedAt for sinceModifiedAt), and the
 * mutations, each of which moves the affected client's lastModifiedAt and logs the change.
 */
import type { Clock } from './clock';
import { ModifiedAtIndex } from './modifiedIndex';

export const CLIENT_STATES = ['PROSPECT', 'EXISTING', 'ARCHIVED', 'DISCARDED'] as const;
export const CREATABLE_STATES = ['PROSPECT', 'EXISTING'] as const;
export const AML_STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'COMPLETE'] as const;
export const RISK_LEVELS = ['PENDING', 'LOW', 'NORMAL', 'MEDIUM', 'HIGH'] as const;
export const ORGANISATION_TYPES = ['COMPANY', 'NON_PROFIT', 'TRUST', 'OTHER'] as const;

export type ClientState = (typeof CLIENT_STATES)[number];
export type AmlStatus = (typeof AML_STATUSES)[number];
export type RiskLevel = (typeof RISK_LEVELS)[number];
export type OrganisationType = (typeof ORGANISATION_TYPES)[number];
export type ClientCategory = 'INDIVIDUAL' | 'ORGANISATION' | 'SOLE_TRADER';

export interface Address {
	line1?: string | null;
	line2?: string | null;
	city?: string | null;
	postcode?: string | null;
	county?: string | null;
	country?: string | null;
}

/** Day and month are unknown for some people: only the year is guaranteed. */
export interface Birth {
	day?: number;
	month?: number;
	year: number;
}

export interface StaffMember {
	id: string;
	firstName: string;
	lastName: string;
	isPartner: boolean;
	isManager: boolean;
	isReviewer: boolean;
}

export interface Firm {
	id: string;
	name: string;
	services: { id: string; name: string }[];
	businessUnits: { id: string; name: string; type: string }[];
	staff: StaffMember[];
	mlroStaffId: string | null;
	createdAt: string;
	updatedAt: string;
}

/** The person fields shared by an individual record and the create/update requests. */
export interface PersonFields {
	firstName: string;
	middleName?: string;
	lastName: string;
	email?: string;
	residentialAddress?: Address;
	birth?: Birth;
}

export interface IndividualRecord extends PersonFields {
	kind: 'individual';
	id: string;
	firmId: string;
	/** The client whose entity this individual is (INDIVIDUAL clients only). */
	clientId?: string;
	/** The sole trader this individual trades as, if any. */
	soleTraderId?: string;
	createdAtMs: number;
	updatedAtMs: number;
}

export interface OrganisationRecord {
	kind: 'organisation';
	id: string;
	firmId: string;
	name: string;
	companyNumber?: string;
	identifyingNumber?: string;
	organisationType: OrganisationType;
	organisationSubType?: string;
	registeredAddress?: Address;
	tradingAddress?: Address;
	relatedPartiesCount: number;
	clientId?: string;
	createdAtMs: number;
	updatedAtMs: number;
}

export interface SoleTraderRecord {
	kind: 'sole_trader';
	id: string;
	firmId: string;
	tradingName?: string;
	individualId: string;
	clientId?: string;
	createdAtMs: number;
	updatedAtMs: number;
}

export type EntityRecord = IndividualRecord | OrganisationRecord | SoleTraderRecord;

export interface AmlDetermination {
	riskLevel: RiskLevel;
	completedAtMs: number;
}

/** The client fields a create or update request can set (null clears a field on update). */
export interface ClientAssignments {
	partnerId?: string;
	managerId?: string;
	businessUnitId?: string;
	serviceIds: string[];
	referenceNumber?: string;
	nextReviewDate?: string;
}

export interface ClientRecord extends ClientAssignments {
	id: string;
	firmId: string;
	/** Position in the firm's creation order: what cursors and the modified index address. */
	position: number;
	state: ClientState;
	category: ClientCategory;
	entityId: string;
	amlDeterminationStatus: AmlStatus;
	lastAmlDetermination?: AmlDetermination;
	lastModifiedAtMs: number;
	createdAtMs: number;
	updatedAtMs: number;
}

/** Why a client's lastModifiedAt moved (see changes()). */
export type ChangeCause = 'created' | 'updated' | 'individualUpdated' | 'amlDetermination';

export interface ChangeRecord {
	clientId: string;
	lastModifiedAt: string;
	cause: ChangeCause;
}

/** One firm's records, each list in creation order. */
export class FirmData {
	readonly clients: ClientRecord[] = [];
	readonly individuals: IndividualRecord[] = [];
	readonly organisations: OrganisationRecord[] = [];
	readonly clientIdsByReference = new Map<string, string>();
	modifiedIndex = new ModifiedAtIndex();

	constructor(readonly firm: Firm) {}

	/** Builds the lastModifiedAt index in one pass (after seeding many clients at once). */
	reindex(): void {
		this.modifiedIndex = new ModifiedAtIndex(this.clients.map((client) => client.lastModifiedAtMs));
	}

	isPartner(staffId: string): boolean {
		return this.firm.staff.some((member) => member.id === staffId && member.isPartner);
	}

	isManager(staffId: string): boolean {
		return this.firm.staff.some((member) => member.id === staffId && member.isManager);
	}

	hasBusinessUnit(id: string): boolean {
		return this.firm.businessUnits.some((unit) => unit.id === id);
	}

	hasService(id: string): boolean {
		return this.firm.services.some((service) => service.id === id);
	}
}

/** Thrown when a request conflicts with stored data (answered 409). */
export class ConflictError extends Error {
	constructor(
		message: string,
		/** The field whose value is taken. */
		readonly field: string,
	) {
		super(message);
	}
}

/** A new client's entity, as validated from a createClient request. */
export type NewEntity =
	| ({ object: 'individual' } & PersonFields)
	| { object: 'sole_trader'; tradingName?: string; individual: PersonFields }
	| {
			object: 'organisation';
			name: string;
			organisationType: OrganisationType;
			organisationSubType?: string;
			companyNumber?: string;
			identifyingNumber?: string;
			registeredAddress?: Address;
			tradingAddress?: Address;
	  };

export interface NewClient extends ClientAssignments {
	state: ClientState;
	entity: NewEntity;
}

/** A partial update: a key present with null clears that field. */
export type ClientUpdate = Partial<
	{ state: ClientState; serviceIds: string[] } & {
		[K in 'partnerId' | 'managerId' | 'businessUnitId' | 'referenceNumber' | 'nextReviewDate']:
			| string
			| null;
	}
>;

export type IndividualUpdate = Partial<
	{ firstName: string; lastName: string } & {
		middleName: string | null;
		email: string | null;
		residentialAddress: Address | null;
		birth: Birth | null;
	}
>;

/**
 * Records keep their times as epoch milliseconds (compact, cheap to compare and index); the
 * API shows them as ISO 8601 date-time strings.
 */
export const isoTime = (ms: number) => new Date(ms).toISOString();

export class Store {
	readonly firms = new Map<string, FirmData>();
	readonly clients = new Map<string, ClientRecord>();
	readonly entities = new Map<string, EntityRecord>();
	private readonly changeLog: ChangeRecord[] = [];

	constructor(
		private readonly clock: Clock,
		private readonly newId: () => string,
	) {}

	addFirm(firm: Firm): FirmData {
		const data = new FirmData(firm);
		this.firms.set(firm.id, data);
		return data;
	}

	firmData(firmId: string): FirmData {
		const data = this.firms.get(firmId);
		if (!data) throw new Error(`No firm ${firmId}`);
		return data;
	}

	/** A client of this firm; another firm's client is as unknown as a made-up id. */
	client(firmId: string, id: string): ClientRecord | undefined {
		const client = this.clients.get(id);
		return client?.firmId === firmId ? client : undefined;
	}

	individual(firmId: string, id: string): IndividualRecord | undefined {
		const entity = this.entities.get(id);
		return entity?.kind === 'individual' && entity.firmId === firmId ? entity : undefined;
	}

	entity<K extends EntityRecord['kind']>(id: string, kind: K): Extract<EntityRecord, { kind: K }> {
		const entity = this.entities.get(id);
		if (entity?.kind !== kind) throw new Error(`No ${kind} ${id}`);
		return entity as Extract<EntityRecord, { kind: K }>;
	}

	/** Every change that moved a client's lastModifiedAt since start, in order. */
	changes(): ChangeRecord[] {
		return this.changeLog.map((change) => ({ ...change }));
	}

	/**
	 * Stores a client and its new entity with explicit timestamps. Seeding calls it with
	 * `logChange: false`; the API goes through createClient.
	 */
	insertClient(
		firmId: string,
		input: NewClient,
		times: { createdAtMs: number; lastModifiedAtMs: number },
		ids: { client: string; entity: string; individual?: string },
		extra: Pick<ClientRecord, 'amlDeterminationStatus' | 'lastAmlDetermination'> & {
			relatedPartiesCount?: number;
		},
	): ClientRecord {
		const data = this.firmData(firmId);
		if (input.referenceNumber !== undefined)
			this.claimReference(data, input.referenceNumber, ids.client);
		const { createdAtMs } = times;
		const { entity } = input;
		let category: ClientCategory;
		if (entity.object === 'individual') {
			this.addIndividual(
				data,
				individualRecord(ids.entity, firmId, entity, createdAtMs, { clientId: ids.client }),
			);
			category = 'INDIVIDUAL';
		} else if (entity.object === 'sole_trader') {
			// The person behind a sole trader has no client of their own: the client is the sole trader's.
			const individualId = ids.individual ?? this.newId();
			this.addIndividual(
				data,
				individualRecord(individualId, firmId, entity.individual, createdAtMs, {
					soleTraderId: ids.entity,
				}),
			);
			this.entities.set(ids.entity, {
				kind: 'sole_trader',
				id: ids.entity,
				firmId,
				tradingName: entity.tradingName,
				individualId,
				clientId: ids.client,
				createdAtMs,
				updatedAtMs: createdAtMs,
			});
			category = 'SOLE_TRADER';
		} else {
			const organisation: OrganisationRecord = {
				kind: 'organisation',
				id: ids.entity,
				firmId,
				name: entity.name,
				companyNumber: entity.companyNumber,
				identifyingNumber: entity.identifyingNumber,
				organisationType: entity.organisationType,
				organisationSubType: entity.organisationSubType,
				registeredAddress: entity.registeredAddress,
				tradingAddress: entity.tradingAddress,
				relatedPartiesCount: extra.relatedPartiesCount ?? 0,
				clientId: ids.client,
				createdAtMs,
				updatedAtMs: createdAtMs,
			};
			this.entities.set(organisation.id, organisation);
			data.organisations.push(organisation);
			category = 'ORGANISATION';
		}
		const client: ClientRecord = {
			id: ids.client,
			firmId,
			position: data.clients.length,
			state: input.state,
			category,
			entityId: ids.entity,
			amlDeterminationStatus: extra.amlDeterminationStatus,
			lastAmlDetermination: extra.lastAmlDetermination,
			lastModifiedAtMs: times.lastModifiedAtMs,
			nextReviewDate: input.nextReviewDate,
			partnerId: input.partnerId,
			managerId: input.managerId,
			businessUnitId: input.businessUnitId,
			serviceIds: input.serviceIds,
			referenceNumber: input.referenceNumber,
			createdAtMs,
			updatedAtMs: times.lastModifiedAtMs,
		};
		data.clients.push(client);
		this.clients.set(client.id, client);
		return client;
	}

	/** createClient: a new client and entity, stamped now. */
	createClient(firmId: string, input: NewClient): ClientRecord {
		const now = this.clock.nowMs();
		const client = this.insertClient(
			firmId,
			input,
			{ createdAtMs: now, lastModifiedAtMs: now },
			{ client: this.newId(), entity: this.newId() },
			{ amlDeterminationStatus: 'NOT_STARTED' },
		);
		this.firmData(firmId).modifiedIndex.append(now);
		this.changeLog.push({ clientId: client.id, lastModifiedAt: isoTime(now), cause: 'created' });
		return client;
	}

	/** updateClient: changes only the given fields; lastModifiedAt moves only if a value changed. */
	updateClient(client: ClientRecord, update: ClientUpdate): void {
		const data = this.firmData(client.firmId);
		if (update.referenceNumber && update.referenceNumber !== client.referenceNumber) {
			this.claimReference(data, update.referenceNumber, client.id);
		}
		const before = JSON.stringify(client);
		const previousReference = client.referenceNumber;
		for (const [key, value] of Object.entries(update) as [keyof ClientUpdate, unknown][]) {
			Object.assign(client, { [key]: value ?? undefined });
		}
		if (previousReference !== undefined && previousReference !== client.referenceNumber) {
			data.clientIdsByReference.delete(previousReference);
		}
		if (JSON.stringify(client) === before) return;
		client.updatedAtMs = this.touch(client, 'updated');
	}

	/** updateIndividual: a change moves the lastModifiedAt of the client it belongs to, if any. */
	updateIndividual(individual: IndividualRecord, update: IndividualUpdate): void {
		const before = JSON.stringify(individual);
		for (const [key, value] of Object.entries(update) as [keyof IndividualUpdate, unknown][]) {
			Object.assign(individual, { [key]: value ?? undefined });
		}
		if (JSON.stringify(individual) === before) return;
		individual.updatedAtMs = this.clock.nowMs();
		const owner = individual.soleTraderId
			? this.entity(individual.soleTraderId, 'sole_trader').clientId
			: individual.clientId;
		if (owner) this.touch(this.clients.get(owner)!, 'individualUpdated', individual.updatedAtMs);
	}

	/**
	 * What the service's own AML workflow does when a determination completes (not an API
	 * operation): records the result and schedules the next review by risk.
	 */
	completeAmlDetermination(client: ClientRecord, riskLevel: RiskLevel): void {
		const completedAtMs = this.clock.nowMs();
		client.lastAmlDetermination = { riskLevel, completedAtMs };
		client.amlDeterminationStatus = 'COMPLETE';
		client.nextReviewDate = addMonths(completedAtMs, REVIEW_INTERVAL_MONTHS[riskLevel]);
		client.updatedAtMs = this.touch(client, 'amlDetermination', completedAtMs);
	}

	private addIndividual(data: FirmData, individual: IndividualRecord): void {
		this.entities.set(individual.id, individual);
		data.individuals.push(individual);
	}

	private claimReference(data: FirmData, referenceNumber: string, clientId: string): void {
		const holder = data.clientIdsByReference.get(referenceNumber);
		if (holder !== undefined && holder !== clientId) {
			throw new ConflictError(
				`referenceNumber '${referenceNumber}' is already used by client ${holder}; reference numbers are unique within the firm`,
				'referenceNumber',
			);
		}
		data.clientIdsByReference.set(referenceNumber, clientId);
	}

	private touch(client: ClientRecord, cause: ChangeCause, atMs = this.clock.nowMs()): number {
		client.lastModifiedAtMs = atMs;
		this.firmData(client.firmId).modifiedIndex.update(client.position, atMs);
		this.changeLog.push({ clientId: client.id, lastModifiedAt: isoTime(atMs), cause });
		return atMs;
	}
}

/** An individual record; every record has the same fields, in the same order. */
function individualRecord(
	id: string,
	firmId: string,
	person: PersonFields,
	createdAtMs: number,
	owner: { clientId?: string; soleTraderId?: string },
): IndividualRecord {
	return {
		kind: 'individual',
		id,
		firmId,
		firstName: person.firstName,
		middleName: person.middleName,
		lastName: person.lastName,
		email: person.email,
		residentialAddress: person.residentialAddress,
		birth: person.birth,
		clientId: owner.clientId,
		soleTraderId: owner.soleTraderId,
		createdAtMs,
		updatedAtMs: createdAtMs,
	};
}

/** How soon a client is reviewed again after a determination, by risk. */
const REVIEW_INTERVAL_MONTHS: Record<RiskLevel, number> = {
	PENDING: 1,
	LOW: 36,
	NORMAL: 24,
	MEDIUM: 12,
	HIGH: 6,
};

/** `YYYY-MM-DD` of the given instant plus whole months (UTC). */
export function addMonths(ms: number, months: number): string {
	const date = new Date(ms);
	date.setUTCMonth(date.getUTCMonth() + months);
	return date.toISOString().slice(0, 10);
}
