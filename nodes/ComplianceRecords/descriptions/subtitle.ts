import type { INodeProperties } from 'n8n-workflow';

/** The chosen options' display names ("Get Many: Client"), not their values. */
export function subtitleOf(properties: INodeProperties[], parameterNames: string[]): string {
	const shown = parameterNames.map((name) => {
		const names = Object.fromEntries(
			properties
				.filter((property) => property.name === name)
				.flatMap((property) => property.options ?? [])
				.map((option) => ('value' in option ? [String(option.value), option.name] : [])),
		);
		return `(${JSON.stringify(names)}[$parameter["${name}"]] ?? $parameter["${name}"])`;
	});
	return `={{ ${shown.join(' + ": " + ')} }}`;
}
