"""The booking contract site: stays, dates, guests, and fees shown only on the price breakdown."""
