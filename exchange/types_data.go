package exchange

// This file holds the data API's resources ({data_url}). Numbers travel as
// JSON numbers and decode into Number; timestamps are Unix seconds.

// Trade is one cached fill returned by GET /trades.
type Trade struct {
	ProxyWallet           string `json:"proxyWallet"`
	Side                  Side   `json:"side"`
	Asset                 string `json:"asset"` // "<condition_id>:<outcome_index>"
	ConditionID           string `json:"conditionId"`
	Size                  Number `json:"size"`
	Price                 Number `json:"price"`
	Timestamp             int64  `json:"timestamp"` // Unix seconds
	UsdcSize              Number `json:"usdcSize"`
	Title                 string `json:"title"`
	Slug                  string `json:"slug"`
	Icon                  string `json:"icon"`
	EventSlug             string `json:"eventSlug"`
	Outcome               string `json:"outcome"`
	OutcomeIndex          int    `json:"outcomeIndex"`
	Name                  string `json:"name"`
	Pseudonym             string `json:"pseudonym"`
	Bio                   string `json:"bio"`
	ProfileImage          string `json:"profileImage"`
	ProfileImageOptimized string `json:"profileImageOptimized"`
	TransactionHash       string `json:"transactionHash"`
}

// ClosedPosition is one item of GET /closed-positions.
type ClosedPosition struct {
	ProxyWallet        string `json:"proxyWallet"`
	Asset              string `json:"asset"`
	ConditionID        string `json:"conditionId"`
	Title              string `json:"title"`
	Slug               string `json:"slug"`
	Icon               string `json:"icon"`
	EventSlug          string `json:"eventSlug"`
	Outcome            string `json:"outcome"`
	OppositeOutcome    string `json:"oppositeOutcome"`
	OppositeAsset      string `json:"oppositeAsset"`
	Size               Number `json:"size"`
	AvgPrice           Number `json:"avgPrice"`
	InitialValue       Number `json:"initialValue"`
	CurrentValue       Number `json:"currentValue"`
	CashPnl            Number `json:"cashPnl"`
	TotalBought        Number `json:"totalBought"`
	RealizedPnl        Number `json:"realizedPnl"`
	PercentPnl         Number `json:"percentPnl"`
	PercentRealizedPnl Number `json:"percentRealizedPnl"`
	CurPrice           Number `json:"curPrice"`
	Redeemable         bool   `json:"redeemable"`
	Mergeable          bool   `json:"mergeable"`
	OutcomeIndex       int    `json:"outcomeIndex"`
	Timestamp          int64  `json:"timestamp"` // Unix seconds
	EndDate            string `json:"endDate"`   // ISO 8601 date-time
}

// HolderGroup is one item of GET /holders: the top holders of one token.
type HolderGroup struct {
	Token   string   `json:"token"` // "<condition_id>:<outcome_index>"
	Holders []Holder `json:"holders"`
}

// Holder is one wallet's balance of an outcome token.
type Holder struct {
	ProxyWallet           string `json:"proxyWallet"`
	Bio                   string `json:"bio"`
	Asset                 string `json:"asset"`
	Pseudonym             string `json:"pseudonym"`
	Name                  string `json:"name"`
	ProfileImage          string `json:"profileImage"`
	ProfileImageOptimized string `json:"profileImageOptimized"`
	Amount                Number `json:"amount"` // token balance
	DisplayUsernamePublic bool   `json:"displayUsernamePublic"`
	OutcomeIndex          int    `json:"outcomeIndex"`
}
