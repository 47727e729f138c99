/// The help texts: the tool's and each subcommand's.
enum Usage {
    static let tool = """
    usage: chronicle <command> [arguments]

    Inspects a Chronicle journal without the app that wrote it (the journal
    records its own schema). The journal is only read.

    commands:
      log FILE [--from V] [--to V] [--type T] [--follow]
                                                one line per commit
      show FILE V                               one commit in full
      state FILE [--at V] [--type T] [--json] [--follow]
                                                the objects at a version
      history FILE TYPE KEY [PROPERTY]          the history of one object or property
      diff FILE V1 V2                           what changed between two versions
      verify FILE                               check every record and the fold
      export FILE --jsonl [--from V] [--to V]   the commits as JSON Lines, to stdout
      import JSONL OUT                          a new journal OUT from JSON Lines
      stats FILE                                commits, events per kind and type, size
      studio FILE [--output PATH] [--open]      the history as one HTML page to browse

    `chronicle <command> --help` describes a command. Exit status: 0 success,
    64 bad arguments, 65 damaged journal or input, 66 missing file, 1 other errors.
    """

    static let commands: [String: String] = [
        "log": """
        usage: chronicle log FILE [--from V] [--to V] [--type T] [--follow]

        One line per commit: version, time (UTC), label, and a summary of its
        events. --from and --to limit the versions; --type keeps the commits
        whose events touch type T. --follow then goes on printing the commits
        other processes append, as they append them, until interrupted.
        """,
        "show": """
        usage: chronicle show FILE V

        Commit V in full: version, time, label, metadata and every event, with
        type and property names and values.
        """,
        "state": """
        usage: chronicle state FILE [--at V] [--type T] [--json] [--follow]

        The objects at version V (the last by default), one table per type (or
        only type T), or as JSON with --json (values in the JSON Lines mapping).
        --follow prints the state again each time other processes commit,
        until interrupted.
        """,
        "history": """
        usage: chronicle history FILE TYPE KEY [PROPERTY]

        Every commit that created, changed or deleted one object, or changed
        one of its properties. KEY is the primary-key value as text (an
        integer, a string, a UUID or an ObjectId), or #N for the object key N.
        PROPERTY may be a dotted path through links (address.city).
        """,
        "diff": """
        usage: chronicle diff FILE V1 V2

        The objects inserted (+), deleted (-) and changed (~, old → new)
        between versions V1 and V2, and the schema changes in between.
        """,
        "verify": """
        usage: chronicle verify FILE

        Checks every record (framing, checksum, decoding, version order) and
        folds every commit. Exit status 0 when all is good; 65 otherwise, with
        the offset of the damage and how many versions are intact.
        """,
        "export": """
        usage: chronicle export FILE --jsonl [--from V] [--to V]

        Writes the commits to standard output as JSON Lines: one commit per
        line, in the mapping documented by Chronicle's JSONLines type.
        `chronicle import` reads it back into an identical journal.
        """,
        "import": """
        usage: chronicle import JSONL OUT

        Creates the journal OUT (which must not exist) from a JSON Lines file
        written by `chronicle export`.
        """,
        "stats": """
        usage: chronicle stats FILE

        The number of commits and events, events per kind and per type, the
        time span and the file size.
        """,
        "studio": """
        usage: chronicle studio FILE [--output PATH] [--open]

        Writes Chronicle Studio, one self-contained HTML page of the journal's
        history (a timeline with a slider, the objects at any version, an
        object's history, diffs), to PATH (by default FILE's name with
        .studio.html, in the current directory) and prints its path. --open
        opens it with xdg-open or open. A damaged journal's intact versions
        are shown, and the damage reported at the top of the page.
        """,
    ]
}
