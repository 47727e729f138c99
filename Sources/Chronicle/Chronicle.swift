// Chronicle: a reactive event-sourcing library. See Documentation.docc.
