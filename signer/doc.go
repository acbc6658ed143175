// Package signer builds, signs and verifies the exchange's orders and
// authenticates HTTP requests. It is the only package of mmbot that imports
// go-ethereum (the simulated exchange reaches go-ethereum only through the
// Verifier here).
//
// Orders (DESIGN.md §4). An order is the EIP-712 struct
//
//	Order(uint256 salt,address maker,address signer,uint256 tokenId,
//	      uint256 makerAmount,uint256 takerAmount,uint8 side,
//	      uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)
//
// under the domain EIP712Domain(name, version, chainId, verifyingContract),
// where the verifying contract is the neg-risk exchange for neg_risk markets.
// Amounts are integer base units with 6 decimals (exchange.Fixed), computed
// exactly from a price on the tick grid and a size with at most 2 decimals;
// see Amounts.
// Signature types 0 (EOA), 1 (proxy) and 2 (Safe) carry a plain 65-byte
// signature with v = 27/28; type 3 (deposit wallet) carries an ERC-7739
// TypedDataSign wrapper signed by the wallet's owner key (see docs/protocol.md,
// "Signing orders and requests").
//
// The order hash (Signer.Sign, OrderHash) is the EIP-712 digest of the Order
// under its exchange domain, 0x-prefixed lowercase hex. mmbot uses it as the
// exchange's order id, the journal key and the reconciliation handle.
//
// Requests. L2 implements exchange.Authenticator: five SVC_ headers with an
// HMAC-SHA256 over timestamp + METHOD + path + body keyed by the API secret;
// VerifyL2 is the server side.
//
// Keys. A Key is loaded from an environment variable, a file, a go-ethereum
// keystore (v3) file or a systemd credential, never from a command-line flag.
// Neither Key, Credentials nor L2 ever prints secret material: every fmt verb,
// JSON and zerolog path is redacted, and no error message quotes the input it
// rejects.
//
// Nothing here holds mutable package state; a Signer, Verifier and L2 are safe
// for concurrent use.
package signer
