import { ModifiedAtIndex } from '../src/modifiedIndex';
import { Random } from '../src/seed';

/** The index against the obvious scans it replaces, over random values, changes and queries. */
describe('ModifiedAtIndex', () => {
	it.each([0, 1, 2, 7, 64, 1000])(
		'answers like a full scan for %s positions, through appends and updates',
		(size) => {
			const random = new Random(`index-${size}`);
			const values = Array.from({ length: size }, () => random.int(50));
			const index = new ModifiedAtIndex(values);
			const check = () => {
				for (let query = 0; query < 200; query++) {
					const threshold = random.int(60) - 5;
					const from = random.int(values.length + 2);
					expect(index.countAtOrAfter(threshold)).toBe(
						values.filter((value) => value >= threshold).length,
					);
					const expected = values.findIndex(
						(value, position) => position >= from && value >= threshold,
					);
					expect(index.nextAtOrAfter(from, threshold)).toBe(expected);
				}
			};
			check();
			for (let change = 0; change < 300; change++) {
				if (values.length === 0 || random.chance(0.3)) {
					values.push(random.int(50));
					index.append(values[values.length - 1]);
				} else {
					const position = random.int(values.length);
					values[position] = random.int(50);
					index.update(position, values[position]);
				}
			}
			expect(index.length).toBe(values.length);
			check();
		},
	);
});
