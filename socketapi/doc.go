// Package socketapi is the Go SDK of orcr's socket API: the client. What the API is —
// the method table, the request, result and row types, the error codes — is package
// [api], which this one calls through.
//
// # Calls
//
// [Client] has one typed method per use case: [Client.Run], [Client.Ask],
// [Client.Send], [Client.Logs], [Client.Wait], [Client.Kill], [Client.Ls],
// [Client.Status], [Client.Snapshot] and the others. [Invoke] and [InvokeRaw] call any
// entry of the method table ([api.Methods]) generically; [Client.Call] calls any method
// by its wire name, untyped. Every call opens its own connection and closes it after the
// one response. A call
// without a deadline in its context is bounded by Client.Timeout, except agent.wait and
// agent.ask, whose deadline belongs to the server. Ending the context closes the
// connection and returns at once.
//
// # Streams
//
// [Client.Watch] yields a [Model] that stays equal to what api.snapshot would answer,
// updated event by event from watch.open. [Client.FollowLogs] yields an agent's
// transcript entries as they are written and ends once the agent has ended. Both are
// range-over-func iterators: breaking the loop or ending the context stops them and
// releases their connection.
//
// # Caller and scope
//
// [FromEnv] builds the client of code running inside an agent pane or a loop run: it
// finds the server through ORCR_HOME and sends ORCR_ID and ORCR_PATH as the caller, so
// the agents it creates are children of that caller and relative paths land in the
// caller's scope ([Lineage]). [Client.Scope] returns a client whose names, targets and
// patterns live under a further scope; a leading / starts from the root, and uuids are
// never rewritten.
//
// # Errors
//
// A refused request comes back as an *[api.Error] holding one of the nine codes
// ([api.CodeNotFound], [api.CodeInvalidRequest], …), a message and details such as the
// reason. Match it with errors.As or [api.IsCode]. Failures on the client's side (no
// server, the context ended, a broken connection) are environment_error with a cause of
// their own.
//
// # The zero Client
//
// The zero value of Client is ready to use: it talks to the server of the home that
// ORCR_HOME names (~/.orcr when unset) and speaks for nobody.
package socketapi
