/**
 * The index that makes `GET /clients?sinceModifiedAt=` fast on a large firm without a scan.
 *
 * Lists are in creation order (a client's position in its firm), so a page with
 * `sinceModifiedAt` needs "the next positions, from the cursor on, whose lastModifiedAt is at
 * or after T". A max-segment tree over positions answers "next position >= p with value >= T"
 * in O(log n), whether few clients match (whole subtrees are skipped) or many (the next match
 * is close by). `meta.total` needs "how many values >= T": a sorted copy of the values answers
 * it by binary search. A change moves one value: O(log n) in the tree, one memmove in the copy.
 */
export class ModifiedAtIndex {
	private size = 0;
	private capacity = 1;
	/** Node i covers its children 2i and 2i+1; leaves sit at [capacity, 2 * capacity). */
	private maxTree = new Float64Array(2).fill(-Infinity);
	/** Every value, ascending: counts matches by binary search. */
	private sorted: Float64Array;
	private sortedLength: number;

	constructor(values: readonly number[] = []) {
		this.growTree(values.length);
		this.size = values.length;
		this.maxTree.set(values, this.capacity);
		for (let node = this.capacity - 1; node >= 1; node--) this.recompute(node);
		this.sorted = new Float64Array(Math.max(16, values.length));
		this.sorted.set(values);
		this.sorted.subarray(0, values.length).sort();
		this.sortedLength = values.length;
	}

	get length(): number {
		return this.size;
	}

	/** Adds the value of a new position at the end (a new client). */
	append(value: number): void {
		if (this.size === this.capacity) this.growTree(this.size + 1);
		this.size++;
		this.setLeaf(this.size - 1, value);
		this.insertSorted(value);
	}

	/** Moves the value at `position` (a client's lastModifiedAt changed). */
	update(position: number, value: number): void {
		this.removeSorted(this.maxTree[this.capacity + position]);
		this.setLeaf(position, value);
		this.insertSorted(value);
	}

	/** How many positions hold a value >= threshold. */
	countAtOrAfter(threshold: number): number {
		return this.sortedLength - this.lowerBound(threshold);
	}

	/** The first position >= from whose value is >= threshold, or -1. */
	nextAtOrAfter(from: number, threshold: number): number {
		if (from >= this.size) return -1;
		let node = this.capacity + from;
		if (this.maxTree[node] >= threshold) return from;
		for (;;) {
			// Climb while we are a right child: the parent's left part lies before `from`.
			while (node & 1) {
				if (node === 1) return -1;
				node >>= 1;
			}
			node++; // the right sibling covers the positions just after what was searched
			if (this.maxTree[node] >= threshold) break;
		}
		while (node < this.capacity) {
			node <<= 1;
			if (this.maxTree[node] < threshold) node++;
		}
		return node - this.capacity;
	}

	private recompute(node: number): void {
		this.maxTree[node] = Math.max(this.maxTree[2 * node], this.maxTree[2 * node + 1]);
	}

	private setLeaf(position: number, value: number): void {
		let node = this.capacity + position;
		this.maxTree[node] = value;
		for (node >>= 1; node >= 1; node >>= 1) this.recompute(node);
	}

	/** Doubles the tree until it holds `minimumCapacity` leaves (unused leaves never match). */
	private growTree(minimumCapacity: number): void {
		let capacity = this.capacity;
		while (capacity < minimumCapacity) capacity *= 2;
		if (capacity === this.capacity) return;
		const maxTree = new Float64Array(2 * capacity).fill(-Infinity);
		maxTree.set(this.maxTree.subarray(this.capacity, this.capacity + this.size), capacity);
		this.maxTree = maxTree;
		this.capacity = capacity;
		for (let node = capacity - 1; node >= 1; node--) this.recompute(node);
	}

	/** The first index of the sorted values whose value is >= threshold. */
	private lowerBound(threshold: number): number {
		let low = 0;
		let high = this.sortedLength;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (this.sorted[middle] < threshold) low = middle + 1;
			else high = middle;
		}
		return low;
	}

	private insertSorted(value: number): void {
		if (this.sortedLength === this.sorted.length) {
			const sorted = new Float64Array(this.sorted.length * 2);
			sorted.set(this.sorted);
			this.sorted = sorted;
		}
		const index = this.lowerBound(value);
		this.sorted.copyWithin(index + 1, index, this.sortedLength);
		this.sorted[index] = value;
		this.sortedLength++;
	}

	private removeSorted(value: number): void {
		const index = this.lowerBound(value);
		this.sorted.copyWithin(index, index + 1, this.sortedLength);
		this.sortedLength--;
	}
}
