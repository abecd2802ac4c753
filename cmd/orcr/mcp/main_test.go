package mcp_test

import (
	"testing"

	"github.com/orcr-go/orcr/socketapi/sockettest"
)

// Every HTTP session ends with its listener: none of their goroutines may outlive a test.
func TestMain(m *testing.M) { sockettest.VerifyTestMain(m) }
