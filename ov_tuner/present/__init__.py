"""What people see: terminal tables, figures and reports."""
