package mcp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every HTTP session ends with its listener: none of their goroutines may outlive a test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
