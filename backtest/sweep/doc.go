// Package sweep runs a parameter grid: Parse reads "key=v1,v2" arguments,
// Grid forms their cartesian product (bounded by MaxGrid), and Run calls a
// function for every combination on a pool of workers and returns one Row
// of headline figures per combination, in grid order whatever the number
// of workers. A failed combination does not stop the others.
package sweep
