const { src, dest, parallel } = require('gulp');

// tsup compiles the TypeScript; n8n also needs each node's SVG icons and codex (.node.json)
// next to the built files, at the same relative paths as in the source tree.
function copyIcons() {
	return src(['icons/*.svg', 'nodes/**/*.svg', 'credentials/**/*.svg'], { base: '.' }).pipe(
		dest('dist'),
	);
}

function copyCodex() {
	return src('nodes/**/*.node.json', { base: '.' }).pipe(dest('dist'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
