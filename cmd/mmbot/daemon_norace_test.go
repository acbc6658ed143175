//go:build !race

package main

// raceBuild: the tests run without -race, and so does the daemon.
const raceBuild = false
