// Package sweep runs a parameter grid: Parse reads "key=v1,v2" arguments,
// Grid forms their cartesian product (bounded by MaxGrid), and Run calls a
// function for every combination on a pool of workers and returns one Row
// of headline figures per combination, in grid order whatever the number
// of workers. A failed combination does not stop the others.
//
// A sweep too big for one machine is cut into shards, each an independent
// job for a scheduler: Shard{i, n} holds the combinations k with
// k mod n = i (Shard.Of), so every combination is in exactly one shard.
// ParseShardFlag and ShardFlag.Resolve read "i/n", or take the index from a
// Kubernetes Indexed Job (JOB_COMPLETION_INDEX) or a Slurm array
// (SLURM_ARRAY_TASK_ID, _MIN, _COUNT, _STEP) through an injected getenv.
// Each shard's rows travel as a Part with the sweep's Identity (grid,
// digests of the data and the configuration, seed, build); Merge joins the
// parts into the rows the whole sweep gives in one process, and refuses
// parts of different sweeps, missing shards and duplicate ones.
package sweep
