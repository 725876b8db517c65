// Reads for the code index and the project tools: many files in one round trip.
export interface SourceOps {}
