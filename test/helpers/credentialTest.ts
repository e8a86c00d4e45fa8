import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	INode,
	INodeType,
} from 'n8n-workflow';
import { createRunExecutionData, UnexpectedError } from 'n8n-workflow';

import { CredentialStore } from './credentials';
import { additionalDataFor, TestNodeTypes, workflowWith } from './engine';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * The editor's "Test" button for a credential whose type declares a test request, run the way
 * n8n's credentials tester runs it: the credential with its defaults, a stand-in node whose only
 * field routes the test request, n8n-core's RoutingNode, and the type's response-code rules.
 */
export async function testCredential(
	credentialType: ICredentialType,
	data: ICredentialDataDecryptedObject,
): Promise<CredentialTestResult> {
	const test = credentialType.test;
	if (!test) throw new UnexpectedError(`${credentialType.name} has no test request`);
	const store = new CredentialStore({ [credentialType.name]: data });
	const credentialsDecrypted = {
		id: 'tested',
		name: 'Tested credential',
		type: credentialType.name,
		data: store.withDefaults(credentialType.name, data),
	};
	const standIn: INodeType = {
		description: {
			displayName: 'Credential test',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: test.request },
				},
			],
		},
	};
	const nodeTypes = new TestNodeTypes([standIn]);
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'n8n-nodes-compliance-records.credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'tested', name: 'Tested credential' } },
	};
	const workflow = workflowWith(node, nodeTypes);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(store, 'internal', {} as never),
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	try {
		await new RoutingNode(context, standIn, credentialsDecrypted).runNode();
	} catch (error) {
		const response = (error as { cause?: { response?: { status: number; statusText?: string } } })
			.cause?.response;
		if (response) {
			const rule = test.rules?.find(
				(candidate) =>
					candidate.type === 'responseCode' && candidate.properties.value === response.status,
			);
			if (rule) return { status: 'Error', message: String(rule.properties.message) };
			return {
				status: 'Error',
				message: response.statusText || `Received HTTP status code: ${response.status}`,
			};
		}
		return { status: 'Error', message: String((error as Error).message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
