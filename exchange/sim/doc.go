// Package sim is the simulated exchange: the data, catalog and order-book
// APIs of spec/service-interface.md served over HTTP on one loopback
// listener, backed by the matching engine (package engine), a generated or
// loaded catalog (package catalog) and simulated order flow.
//
// One listener serves the three areas under path prefixes: with the
// listener at 127.0.0.1:PORT the base addresses are
// http://127.0.0.1:PORT/data, http://127.0.0.1:PORT/catalog and
// http://127.0.0.1:PORT/clob.
//
// Everything follows DESIGN.md §4: orders are verified with package signer
// (EIP-712, signature types 0 to 3, type 3 as ERC-1271/ERC-7739), the
// authenticated calls (POST /orders, DELETE /order, GET /data/order/{id})
// check the five SVC_ headers, an order's id is its hash, and the status
// codes, error bodies and rate caps are the ones the design fixes.
//
// Time: the exchange runs on its own clock. In real-time mode the clock is
// the wall clock and a ticker advances the order flow every Config.Step; in
// manual mode (Config.Manual) the clock starts at Config.Start and moves
// only through Advance, so a test is deterministic for a given seed.
// Authentication freshness and rate limits always use Config.WallClock,
// because clients sign with real time.
//
// docs/simulator.md describes what is modelled, what is not, and every
// knob. An Exchange is safe for concurrent use.
package sim
