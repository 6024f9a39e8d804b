package kafkatoxic

import (
	"time"
)

// Hit is one request a fault acted on, as the harness reads it back (GET on the toxic):
// enough to say which request it was, on which connection, and what became of it.
type Hit struct {
	At              float64 `json:"at"` // unix seconds, when the request's head passed
	Action          string  `json:"action"`
	API             string  `json:"api"`
	Version         int16   `json:"version"`
	CorrelationID   int32   `json:"correlation_id"`
	ClientID        string  `json:"client_id"`
	Connection      int64   `json:"connection"` // numbered per toxic, in the order connections met it
	TransactionalID *string `json:"transactional_id,omitempty"`
	GroupID         *string `json:"group_id,omitempty"`
	Committed       *bool   `json:"committed,omitempty"` // EndTxn: commit (true) or abort
	// hold and delay_response: when what was held went on; whether the client had closed the
	// connection by then (the late copy reached a broker the client no longer listened to).
	DeliveredAt  *float64 `json:"delivered_at,omitempty"`
	ClientClosed *bool    `json:"client_closed,omitempty"`
	// cut_after: when the connection was closed in place of the answer.
	ClosedAt *float64 `json:"closed_at,omitempty"`
	// cut_after, delay_response and error: when the broker's answer came back, and the error
	// code the broker gave (before an error fault replaced it).
	RespondedAt   *float64 `json:"responded_at,omitempty"`
	BrokerErrCode *int16   `json:"broker_error_code,omitempty"`
}

func unixNow() float64 {
	return float64(time.Now().UnixNano()) / 1e9
}

func stringField(fields map[string]any, name string) *string {
	if s, ok := fields[name].(string); ok {
		return &s
	}
	return nil
}

func boolField(fields map[string]any, name string) *bool {
	if b, ok := fields[name].(bool); ok {
		return &b
	}
	return nil
}
