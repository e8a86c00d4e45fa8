import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** A message about one input item ends in `[item N]` (n8n's UX guidelines); a poll's has no item. */
export function withItem(message: string, itemIndex: number | undefined): string {
	return itemIndex === undefined ? message : `${message} [item ${itemIndex}]`;
}

/** The error of one input item, shown by n8n on that item: what went wrong, and what to do. */
export function itemError(node: INode, itemIndex: number | undefined, message: string, description: string): NodeOperationError {
	return new NodeOperationError(node, withItem(message, itemIndex), { itemIndex, description });
}
