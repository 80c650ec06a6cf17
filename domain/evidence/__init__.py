"""Evidence integrity (methodology sections 16 and 17): recordings and logs as streams, and
the derived, served copies made from them by named, versioned, pure transforms."""
