// Package golden compares test output with golden files under testdata/ and
// rewrites them when a package's tests run with their -update flag. It is
// for tests only.
package golden
