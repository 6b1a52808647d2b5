/*
 * The API's taxonomy: what platforms and niches mean and which cities belong to
 * which country. The demo generator (data/seed/) draws from it; nothing here
 * knows about demo data.
 */

/** The fixed niche taxonomy (docs/search.md). */
export const NICHES = [
  'beauty',
  'fashion',
  'fitness',
  'food',
  'travel',
  'gaming',
  'tech',
  'finance',
  'parenting',
  'music',
  'comedy',
  'education',
  'sports',
  'lifestyle',
  'pets',
  'automotive',
  'home',
  'health',
  'art',
  'business',
] as const;
export type Niche = (typeof NICHES)[number];

export const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitch', 'x'] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * The gazetteer: each country the service knows cities of, with its main
 * language and three of its cities (a profile names a creator's country from
 * its city when the source gave only the city).
 */
export const GAZETTEER: ReadonlyArray<{ code: string; language: string; cities: readonly [string, string, string] }> = [
  { code: 'US', language: 'en', cities: ['Los Angeles', 'New York', 'Miami'] },
  { code: 'GB', language: 'en', cities: ['London', 'Manchester', 'Birmingham'] },
  { code: 'IN', language: 'hi', cities: ['Mumbai', 'Delhi', 'Bengaluru'] },
  { code: 'BR', language: 'pt', cities: ['São Paulo', 'Rio de Janeiro', 'Belo Horizonte'] },
  { code: 'MX', language: 'es', cities: ['Mexico City', 'Guadalajara', 'Monterrey'] },
  { code: 'ID', language: 'id', cities: ['Jakarta', 'Surabaya', 'Bandung'] },
  { code: 'CA', language: 'en', cities: ['Toronto', 'Vancouver', 'Montreal'] },
  { code: 'DE', language: 'de', cities: ['Berlin', 'Munich', 'Hamburg'] },
  { code: 'FR', language: 'fr', cities: ['Paris', 'Lyon', 'Marseille'] },
  { code: 'ES', language: 'es', cities: ['Madrid', 'Barcelona', 'Valencia'] },
  { code: 'IT', language: 'it', cities: ['Milan', 'Rome', 'Naples'] },
  { code: 'AU', language: 'en', cities: ['Sydney', 'Melbourne', 'Brisbane'] },
  { code: 'PH', language: 'tl', cities: ['Manila', 'Quezon City', 'Cebu City'] },
  { code: 'TR', language: 'tr', cities: ['Istanbul', 'Ankara', 'Izmir'] },
  { code: 'JP', language: 'ja', cities: ['Tokyo', 'Osaka', 'Yokohama'] },
  { code: 'KR', language: 'ko', cities: ['Seoul', 'Busan', 'Incheon'] },
  { code: 'AR', language: 'es', cities: ['Buenos Aires', 'Córdoba', 'Rosario'] },
  { code: 'CO', language: 'es', cities: ['Bogotá', 'Medellín', 'Cali'] },
  { code: 'NG', language: 'en', cities: ['Lagos', 'Abuja', 'Ibadan'] },
  { code: 'ZA', language: 'en', cities: ['Johannesburg', 'Cape Town', 'Durban'] },
  { code: 'NL', language: 'nl', cities: ['Amsterdam', 'Rotterdam', 'Utrecht'] },
  { code: 'PL', language: 'pl', cities: ['Warsaw', 'Kraków', 'Wrocław'] },
  { code: 'SE', language: 'sv', cities: ['Stockholm', 'Gothenburg', 'Malmö'] },
  { code: 'TH', language: 'th', cities: ['Bangkok', 'Chiang Mai', 'Phuket'] },
  { code: 'VN', language: 'vi', cities: ['Ho Chi Minh City', 'Hanoi', 'Da Nang'] },
  { code: 'EG', language: 'ar', cities: ['Cairo', 'Alexandria', 'Giza'] },
  { code: 'SA', language: 'ar', cities: ['Riyadh', 'Jeddah', 'Dammam'] },
  { code: 'AE', language: 'ar', cities: ['Dubai', 'Abu Dhabi', 'Sharjah'] },
  { code: 'PK', language: 'ur', cities: ['Karachi', 'Lahore', 'Islamabad'] },
  { code: 'BD', language: 'bn', cities: ['Dhaka', 'Chittagong', 'Khulna'] },
  { code: 'MY', language: 'ms', cities: ['Kuala Lumpur', 'George Town', 'Johor Bahru'] },
  { code: 'CL', language: 'es', cities: ['Santiago', 'Valparaíso', 'Concepción'] },
  { code: 'PE', language: 'es', cities: ['Lima', 'Arequipa', 'Trujillo'] },
  { code: 'PT', language: 'pt', cities: ['Lisbon', 'Porto', 'Braga'] },
  { code: 'IE', language: 'en', cities: ['Dublin', 'Cork', 'Galway'] },
  { code: 'BE', language: 'nl', cities: ['Brussels', 'Antwerp', 'Ghent'] },
  { code: 'CH', language: 'de', cities: ['Zurich', 'Geneva', 'Basel'] },
  { code: 'AT', language: 'de', cities: ['Vienna', 'Graz', 'Salzburg'] },
  { code: 'NZ', language: 'en', cities: ['Auckland', 'Wellington', 'Christchurch'] },
  { code: 'SG', language: 'en', cities: ['Singapore', 'Jurong West', 'Tampines'] },
];
