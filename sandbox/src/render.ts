/**
 * The JSON shapes of the spec (§2), built from stored records. Single items carry everything;
 * list items of clients carry an entity reference and no partner, manager, business unit,
 * services, createdAt or updatedAt. Unset optional fields are absent (JSON drops undefined).
 */
import { isoTime } from './store';
import type {
	ClientRecord,
	EntityRecord,
	Firm,
	IndividualRecord,
	OrganisationRecord,
	SoleTraderRecord,
	Store,
} from './store';

/** The service's web application: `links.web` points there. The sandbox does not serve it. */
export const WEB_APP_ORIGIN = 'https://app.compliance-records.example';

const ENTITY_PATHS: Record<EntityRecord['kind'], string> = {
	individual: 'individuals',
	organisation: 'organisations',
	sole_trader: 'sole-traders',
};

export class Renderer {
	constructor(
		private readonly store: Store,
		private readonly baseUrl: string,
	) {}

	clientListItem(client: ClientRecord) {
		const entity = this.store.entities.get(client.entityId)!;
		return {
			...this.clientHead(client),
			entity: {
				links: this.links(ENTITY_PATHS[entity.kind], entity.id),
				id: entity.id,
				object: entity.kind,
			},
			...this.clientAml(client),
		};
	}

	client(client: ClientRecord) {
		const { staff, businessUnits } = this.store.firmData(client.firmId).firm;
		const staffReference = (id: string | undefined) => {
			const member = staff.find((candidate) => candidate.id === id);
			return member && { id: member.id, name: `${member.firstName} ${member.lastName}` };
		};
		const unit = businessUnits.find((candidate) => candidate.id === client.businessUnitId);
		return {
			...this.clientHead(client),
			entity: this.entity(client.entityId),
			...this.clientAml(client),
			partner: staffReference(client.partnerId),
			manager: staffReference(client.managerId),
			businessUnit: unit && { id: unit.id, name: unit.name, type: unit.type },
			services: [...client.serviceIds],
			createdAt: isoTime(client.createdAtMs),
			updatedAt: isoTime(client.updatedAtMs),
		};
	}

	individual(individual: IndividualRecord) {
		return {
			links: this.links('individuals', individual.id),
			id: individual.id,
			object: 'individual',
			firstName: individual.firstName,
			middleName: individual.middleName,
			lastName: individual.lastName,
			email: individual.email,
			residentialAddress: individual.residentialAddress,
			birth: individual.birth,
			client: this.clientReference(individual.clientId),
			createdAt: isoTime(individual.createdAtMs),
			updatedAt: isoTime(individual.updatedAtMs),
		};
	}

	/** `relatedPartiesCount` only where the spec requires it: the organisation inside a client. */
	organisation(organisation: OrganisationRecord, withRelatedPartiesCount: boolean) {
		return {
			links: {
				...this.links('organisations', organisation.id),
				relatedParties: `${this.baseUrl}/organisations/${organisation.id}/related-parties`,
			},
			id: organisation.id,
			object: 'organisation',
			name: organisation.name,
			companyNumber: organisation.companyNumber,
			identifyingNumber: organisation.identifyingNumber,
			organisationType: organisation.organisationType,
			organisationSubType: organisation.organisationSubType,
			registeredAddress: organisation.registeredAddress,
			tradingAddress: organisation.tradingAddress,
			client: this.clientReference(organisation.clientId),
			relatedPartiesCount: withRelatedPartiesCount ? organisation.relatedPartiesCount : undefined,
			createdAt: isoTime(organisation.createdAtMs),
			updatedAt: isoTime(organisation.updatedAtMs),
		};
	}

	soleTrader(soleTrader: SoleTraderRecord) {
		return {
			links: this.links('sole-traders', soleTrader.id),
			id: soleTrader.id,
			object: 'sole_trader',
			tradingName: soleTrader.tradingName,
			individual: this.individual(this.store.entity(soleTrader.individualId, 'individual')),
			client: this.clientReference(soleTrader.clientId),
			createdAt: isoTime(soleTrader.createdAtMs),
			updatedAt: isoTime(soleTrader.updatedAtMs),
		};
	}

	firm(firm: Firm) {
		return {
			links: { self: `${this.baseUrl}/firm`, web: `${WEB_APP_ORIGIN}/firm` },
			id: firm.id,
			object: 'firm',
			name: firm.name,
			services: firm.services,
			businessUnits: firm.businessUnits,
			staff: firm.staff,
			mlroStaffId: firm.mlroStaffId,
			createdAt: firm.createdAt,
			updatedAt: firm.updatedAt,
		};
	}

	/** The client's name follows its entity: the person, the trading name, or the organisation. */
	clientName(client: ClientRecord): string {
		const entity = this.store.entities.get(client.entityId)!;
		if (entity.kind === 'organisation') return entity.name;
		const person =
			entity.kind === 'individual' ? entity : this.store.entity(entity.individualId, 'individual');
		const personName = `${person.firstName} ${person.lastName}`;
		return entity.kind === 'sole_trader' ? (entity.tradingName ?? personName) : personName;
	}

	private clientHead(client: ClientRecord) {
		return {
			links: this.links('clients', client.id),
			id: client.id,
			object: 'client',
			name: this.clientName(client),
			state: client.state,
			referenceNumber: client.referenceNumber,
			category: client.category,
		};
	}

	private clientAml(client: ClientRecord) {
		const determination = client.lastAmlDetermination;
		return {
			amlDeterminationStatus: client.amlDeterminationStatus,
			lastAmlDetermination: determination && {
				riskLevel: determination.riskLevel,
				completedAt: isoTime(determination.completedAtMs),
			},
			lastModifiedAt: isoTime(client.lastModifiedAtMs),
			nextReviewDate: client.nextReviewDate,
		};
	}

	private entity(id: string) {
		const entity = this.store.entities.get(id)!;
		if (entity.kind === 'individual') return this.individual(entity);
		if (entity.kind === 'organisation') return this.organisation(entity, true);
		return this.soleTrader(entity);
	}

	private clientReference(clientId: string | undefined) {
		return clientId === undefined
			? undefined
			: { links: this.links('clients', clientId), id: clientId };
	}

	private links(collection: string, id: string) {
		return {
			self: `${this.baseUrl}/${collection}/${id}`,
			web: `${WEB_APP_ORIGIN}/${collection}/${id}`,
		};
	}
}
