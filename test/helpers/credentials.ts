import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, UnexpectedError, Workflow } from 'n8n-workflow';

import { ComplianceRecordsApi } from '../../credentials/ComplianceRecordsApi.credentials';
import { ComplianceRecordsOAuth2Api } from '../../credentials/ComplianceRecordsOAuth2Api.credentials';
import { TestNodeTypes } from './engine';

/**
 * The credentials side of the test engine: what n8n's credentials helper does for a node at run
 * time, over credentials held in memory instead of n8n's database. Like n8n, it fills in a
 * credential's defaults and resolves its expressions (`$self`), applies the type's
 * `authenticate`, knows OAuth2 types by their `extends`, and keeps the token n8n saves after
 * a refresh.
 */

const credentialTypes: ICredentialType[] = [
	new ComplianceRecordsApi(),
	new ComplianceRecordsOAuth2Api(),
];

/** How the node refers to a stored credential (n8n stores an id and a name per type). */
export const nodeCredentials = (): INode['credentials'] =>
	Object.fromEntries(
		credentialTypes.map((type, index) => [
			type.name,
			{ id: String(index + 1), name: `Test ${type.displayName}` },
		]),
	);

const placeholderNode: INode = {
	id: 'credential-expressions',
	name: 'Credential',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export class CredentialStore extends ICredentialsHelper {
	private readonly data = new Map<string, ICredentialDataDecryptedObject>();

	/** Every token n8n saved after refreshing one, in order. */
	readonly savedTokens: IDataObject[] = [];

	/** How many times n8n asked for a decrypted credential (in n8n: a database read and a decryption). */
	reads = 0;

	constructor(initial: Record<string, ICredentialDataDecryptedObject> = {}) {
		super();
		for (const [type, data] of Object.entries(initial)) this.set(type, data);
	}

	set(type: string, data: ICredentialDataDecryptedObject): this {
		this.typeNamed(type);
		this.data.set(type, { ...data });
		return this;
	}

	/** What is stored, as the user entered it (no defaults applied). */
	stored(type: string): ICredentialDataDecryptedObject {
		const data = this.data.get(type);
		if (!data) throw new UnexpectedError(`No "${type}" credential in this test`);
		return data;
	}

	private typeNamed(name: string): ICredentialType {
		const type = credentialTypes.find((candidate) => candidate.name === name);
		if (!type) throw new UnexpectedError(`Unknown credential type "${name}"`);
		return type;
	}

	getParentTypes(name: string): string[] {
		return this.typeNamed(name).extends ?? [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.typeNamed(type).properties;
	}

	/** Our types authenticate with a function (API key) or through OAuth2, never generically. */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.typeNamed(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate)
			throw new UnexpectedError('Generic authentication is not supported by the test engine');
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new UnexpectedError('Encrypted credentials are not used by the test engine');
	}

	/** The credential as a node sees it: defaults filled in, then expressions over `$self` resolved. */
	withDefaults(
		type: string,
		data: ICredentialDataDecryptedObject,
		mode: WorkflowExecuteMode = 'internal',
	) {
		const withDefaults: ICredentialDataDecryptedObject = { ...data };
		for (const property of this.typeNamed(type).properties) {
			if (withDefaults[property.name] === undefined) {
				withDefaults[property.name] = property.default as ICredentialDataDecryptedObject[string];
			}
		}
		const { expression } = new Workflow({
			nodes: [],
			connections: {},
			active: false,
			nodeTypes: new TestNodeTypes([]),
		});
		return expression.getComplexParameterValue(
			placeholderNode,
			withDefaults as INodeParameters,
			mode,
			{},
			undefined,
			undefined,
			withDefaults,
		) as ICredentialDataDecryptedObject;
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		_executeData?: unknown,
		raw?: boolean,
	): Promise<ICredentialDataDecryptedObject> {
		this.reads++;
		const data = this.stored(type);
		return raw ? { ...data } : this.withDefaults(type, data, mode);
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.set(type, data);
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const oauthTokenData = data.oauthTokenData as IDataObject;
		this.savedTokens.push(oauthTokenData);
		this.set(type, { ...this.stored(type), oauthTokenData });
	}
}

/** Credentials of both types for a running service (the sandbox): as a user would enter them. */
export function credentialsFor(service: {
	baseUrl: string;
	apiKey: string;
	authUrl: string;
	oauthClientId: string;
}): CredentialStore {
	return new CredentialStore({
		complianceRecordsApi: { baseUrl: service.baseUrl, apiKey: service.apiKey },
		complianceRecordsOAuth2Api: {
			baseUrl: service.baseUrl,
			authServerUrl: service.authUrl,
			clientId: service.oauthClientId,
		},
	});
}
