//go:build race

package main

// raceBuild: the tests run with -race, so the daemon under test is built
// with it too.
const raceBuild = true
